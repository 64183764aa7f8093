import { describe, expect, it } from 'vitest';
import { resultMemberSpans } from '../../src/protocol/memberSpans.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Each member of the result as the text of its span, by key (undefined: no spans). */
function memberTexts(text: string): Record<string, string> | undefined {
  const bytes = bytesOf(text);
  const spans = resultMemberSpans(bytes);
  if (spans === undefined) return undefined;
  const decoder = new TextDecoder();
  const out: Record<string, string> = {};
  for (const [key, span] of spans) out[key] = decoder.decode(bytes.subarray(span.start, span.end));
  return out;
}

describe('resultMemberSpans', () => {
  it('gives the span of every member of the result, in any position of the message', () => {
    expect(memberTexts('{"jsonrpc":"2.0","result":{"a":1,"b":"two","c":null},"id":3}')).toEqual({
      a: '"a":1',
      b: '"b":"two"',
      c: '"c":null',
    });
    expect(memberTexts('{"id":"x","jsonrpc":"2.0","result":{"n":-1.5e3,"t":true,"f":false}}')).toEqual({
      n: '"n":-1.5e3',
      t: '"t":true',
      f: '"f":false',
    });
  });

  it('skips escaped quotes and backslashes inside strings, in keys and values', () => {
    const text = String.raw`{"jsonrpc":"2.0","id":1,"result":{"q":"a\"b","bs":"c\\","both":"\\\"}{","k\"ey":"}"}}`;
    expect(memberTexts(text)).toEqual({
      q: String.raw`"q":"a\"b"`,
      bs: String.raw`"bs":"c\\"`,
      both: String.raw`"both":"\\\"}{"`,
      'k"ey': String.raw`"k\"ey":"}"`,
    });
  });

  it('decodes \\u escapes of member names as JSON.parse does, also for the name "result"', () => {
    const text = String.raw`{"jsonrpc":"2.0","id":1,"res\u0075lt":{"\u00e9t\u00E9":"\u2603 snow","x":"\ud83d\ude00"}}`;
    expect(memberTexts(text)).toEqual({
      été: String.raw`"\u00e9t\u00E9":"\u2603 snow"`,
      x: String.raw`"x":"\ud83d\ude00"`,
    });
  });

  it('keeps nested objects and arrays whole, with brackets inside their strings', () => {
    const text =
      '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"]}[{"},[[],{}]],"o":{"a":{"b":[1,{"c":"}"}]}},"z":0}}';
    expect(memberTexts(text)).toEqual({
      content: '"content":[{"type":"text","text":"]}[{"},[[],{}]]',
      o: '"o":{"a":{"b":[1,{"c":"}"}]}}',
      z: '"z":0',
    });
  });

  it('leaves the whitespace around a member out of its span and keeps the whitespace inside it', () => {
    const text = '{ "jsonrpc" : "2.0" ,\t"id":1, "result" :\t{  "a" :\t[ 1 , 2 ]\t,"b":  "x"  } }  ';
    expect(memberTexts(text)).toEqual({ a: '"a" :\t[ 1 , 2 ]', b: '"b":  "x"' });
  });

  it('multi-byte UTF-8 in strings does not move the spans', () => {
    expect(memberTexts('{"jsonrpc":"2.0","id":1,"result":{"é":"€😀\\"","n":2}}')).toEqual({
      é: '"é":"€😀\\""',
      n: '"n":2',
    });
  });

  it('marks a member inexact when a number in it has an exponent or more than 300 digits', () => {
    const text = `{"jsonrpc":"2.0","id":1e0,"result":{"a":1,"b":1.5e3,"c":[1,{"d":2E-400}],"t":true,"f":false,"s":"1e5 \\"2E9","n":-0.5,"big":${'9'.repeat(301)},"ok":[${'9'.repeat(300)}]}}`;
    const spans = resultMemberSpans(bytesOf(text));
    const exact = Object.fromEntries([...(spans ?? [])].map(([key, span]) => [key, span.exact]));
    expect(exact).toEqual({
      a: true,
      b: false,
      c: false,
      t: true,
      f: true,
      s: true,
      n: true,
      big: false,
      ok: true,
    });
  });

  it('gives the spans of an empty result: none', () => {
    expect(memberTexts('{"jsonrpc":"2.0","id":1,"result":{}}')).toEqual({});
    expect(memberTexts('{"jsonrpc":"2.0","id":1,"result":{ }}')).toEqual({});
  });

  it.each([
    ['a duplicated member of the result', '{"jsonrpc":"2.0","id":1,"result":{"a":1,"b":2,"a":3}}'],
    ['a duplicate spelled with an escape', '{"jsonrpc":"2.0","id":1,"result":{"a":1,"\\u0061":3}}'],
    ['two results', '{"jsonrpc":"2.0","id":1,"result":{"a":1},"result":{"a":2}}'],
    ['a duplicated top-level member', '{"jsonrpc":"2.0","id":1,"id":2,"result":{"a":1}}'],
  ])('gives none for %s (JSON.parse keeps the last one)', (_name, text) => {
    expect(memberTexts(text)).toBeUndefined();
  });

  it.each([
    ['between members of the result', '{"jsonrpc":"2.0","id":1,"result":{"a":1,\r"b":2}}'],
    ['inside a nested member', '{"jsonrpc":"2.0","id":1,"result":{"a":[1,\r2]}}'],
    ['at the top level', '{"jsonrpc":"2.0",\r"id":1,"result":{"a":1}}'],
    ['at the end', '{"jsonrpc":"2.0","id":1,"result":{"a":1}}\r'],
  ])('gives none for a carriage return as whitespace %s (never written to the client)', (_name, text) => {
    expect(JSON.parse(text)).toBeTypeOf('object');
    expect(memberTexts(text)).toBeUndefined();
  });

  it.each([
    ['no result', '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}'],
    ['a result that is not an object', '{"jsonrpc":"2.0","id":1,"result":[1,2]}'],
    ['a string result', '{"jsonrpc":"2.0","id":1,"result":"{}"}'],
    ['a message that is not an object', '[{"result":{"a":1}}]'],
    ['text after the message', '{"jsonrpc":"2.0","id":1,"result":{"a":1}} {}'],
    ['an unterminated string', '{"jsonrpc":"2.0","id":1,"result":{"a":"x}}'],
  ])('gives none for %s', (_name, text) => {
    expect(memberTexts(text)).toBeUndefined();
  });
});
