import { describe, expect, it } from 'vitest';
import { createLineSplitter } from '../../src/protocol/lines.js';
import type { RawLine } from '../../src/protocol/lines.js';
import { DEFAULT_MAX_DEPTH, parseLine } from '../../src/protocol/parseLine.js';
import type { Inbound } from '../../src/protocol/parseLine.js';

const limits = { maxDepth: 10, maxLineBytes: 1000 };
const line = (text: string): RawLine => ({ kind: 'line', bytes: new TextEncoder().encode(text) });
const raw = (...values: number[]): RawLine => ({ kind: 'line', bytes: Uint8Array.from(values) });
const parse = (text: string): Inbound => parseLine(line(text), limits);
const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
const requestAt = (levels: number): string =>
  `{"jsonrpc":"2.0","id":3,"method":"x","params":{"a":${nested(levels - 2)}}}`;

describe('parseLine', () => {
  it('gives a frame for a valid request', () => {
    expect(parse('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({
      kind: 'frame',
      frame: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
  });

  it.each(['', ' ', '\t \t'])('skips a blank line %j silently', (text) => {
    expect(parse(text)).toEqual({ kind: 'blank' });
  });

  it('answers text that is not JSON with parse_error and a null id', () => {
    expect(parse('hello')).toEqual({ kind: 'bad', id: null, cause: 'parse_error' });
  });

  it('answers truncated JSON with parse_error and the recovered id', () => {
    expect(parse('{"jsonrpc":"2.0","id":"req-9","method":"x","params":{')).toEqual({
      kind: 'bad',
      id: 'req-9',
      cause: 'parse_error',
    });
  });

  it('answers invalid UTF-8 with parse_error', () => {
    const bytes = [...new TextEncoder().encode('{"jsonrpc":"2.0","id":4,"method":"'), 0xff, 0x22, 0x7d];
    expect(parseLine(raw(...bytes), limits)).toEqual({ kind: 'bad', id: 4, cause: 'parse_error' });
  });

  it('answers an encoded surrogate (CESU-8 bytes) with parse_error', () => {
    const bytes = [...new TextEncoder().encode('{"id":1,"m":"'), 0xed, 0xa0, 0x80, 0x22, 0x7d];
    expect(parseLine(raw(...bytes), limits)).toMatchObject({ kind: 'bad', cause: 'parse_error' });
  });

  it.each([
    ['a lone high surrogate escape', '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"\\ud800"}}'],
    ['a lone low surrogate escape', '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"x\\udfffy"}}'],
    ['a reversed pair', '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"\\udc00\\ud800"}}'],
    [
      'a high surrogate before an ordinary escape',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"\\uD800\\n"}}',
    ],
    ['a lone surrogate in a member name', '{"jsonrpc":"2.0","id":1,"method":"x","params":{"\\ud83d":1}}'],
  ])('a lone surrogate escape is a parse error: %s', (_name, text) => {
    expect(parse(text)).toEqual({ kind: 'bad', id: 1, cause: 'parse_error' });
  });

  it('accepts a valid surrogate pair escape and an escaped backslash before "ud800"', () => {
    const pair = parse(
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"\\ud83d\\ude00","b":"\\\\ud800"}}',
    );
    expect(pair).toEqual({
      kind: 'frame',
      frame: { jsonrpc: '2.0', id: 1, method: 'x', params: { a: '😀', b: '\\ud800' } },
    });
  });

  it('answers a raw control character inside a string with parse_error', () => {
    expect(parse('{"jsonrpc":"2.0","id":2,"method":"a\u0001b"}')).toEqual({
      kind: 'bad',
      id: 2,
      cause: 'parse_error',
    });
  });

  it('answers a byte order mark with parse_error', () => {
    expect(parse('\ufeff{"jsonrpc":"2.0","id":2,"method":"x"}')).toMatchObject({
      kind: 'bad',
      cause: 'parse_error',
    });
  });

  it('refuses a JSON-RPC batch (revision 2025-03-26) as a whole, saying it is a batch', () => {
    const detail = 'a JSON-RPC batch: the bridge takes one message per line';
    expect(parse('[1,2]')).toEqual({ kind: 'bad', id: null, cause: 'invalid_request_shape', detail });
    expect(
      parse('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]'),
    ).toEqual({ kind: 'bad', id: null, cause: 'invalid_request_shape', detail });
  });

  it('answers valid JSON that is not JSON-RPC 2.0 with invalid_request_shape and its id', () => {
    expect(parse('{"jsonrpc":"1.0","id":"a","method":"x"}')).toEqual({
      kind: 'bad',
      id: 'a',
      cause: 'invalid_request_shape',
    });
    expect(parse('"x"')).toEqual({ kind: 'bad', id: null, cause: 'invalid_request_shape' });
    expect(parse('{"jsonrpc":"2.0","id":1.5,"method":"x"}')).toEqual({
      kind: 'bad',
      id: null,
      cause: 'invalid_request_shape',
    });
  });

  it('takes the id of a broken answer from the parsed value, also after the first 256 bytes', () => {
    const text = `{"jsonrpc":"2.0","result":{"content":[${'1,'.repeat(200)}1]},"error":{},"id":"b-3"}`;
    expect(parse(text)).toEqual({ kind: 'bad', id: 'b-3', cause: 'invalid_request_shape' });
  });

  it('accepts 10 levels of nesting with the test limit 10, the message object counting as level 1', () => {
    expect(parse(requestAt(10)).kind).toBe('frame');
    expect(parse(nested(10)).kind).toBe('bad');
    expect(parse(nested(10))).toMatchObject({ cause: 'invalid_request_shape' });
  });

  it('answers 11 levels of nesting with too_deep and the limit in the detail', () => {
    expect(parse(requestAt(11))).toEqual({
      kind: 'bad',
      id: 3,
      cause: 'too_deep',
      detail: 'limit: 10 levels',
    });
    expect(parse(nested(11))).toEqual({
      kind: 'bad',
      id: null,
      cause: 'too_deep',
      detail: 'limit: 10 levels',
    });
  });

  it('answers a short unterminated line deeper than the limit with too_deep, not parse_error', () => {
    // 11 bytes: short enough to be parsed before any scan, still too deep first.
    expect(parse('['.repeat(11))).toEqual({
      kind: 'bad',
      id: null,
      cause: 'too_deep',
      detail: 'limit: 10 levels',
    });
    expect(parse('['.repeat(10))).toEqual({ kind: 'bad', id: null, cause: 'parse_error' });
  });

  it('answers a lone surrogate escape in a short line at the default limit with parse_error', () => {
    const defaults = { maxDepth: DEFAULT_MAX_DEPTH, maxLineBytes: 1000 };
    const text = '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"\\ud800"}}';
    expect(parseLine(line(text), defaults)).toEqual({ kind: 'bad', id: 1, cause: 'parse_error' });
    expect(parseLine(line(text.replace('ud800', 'u00e9')), defaults)).toEqual({
      kind: 'frame',
      frame: { jsonrpc: '2.0', id: 1, method: 'x', params: { a: 'é' } },
    });
  });

  it('does not count brackets inside strings as nesting', () => {
    const text = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"${'[{'.repeat(50)}\\"]"}}`;
    expect(parse(text).kind).toBe('frame');
  });

  it('refuses a line of a million brackets without building it', () => {
    const text = '['.repeat(1_000_000);
    expect(parseLine(line(text), { maxDepth: DEFAULT_MAX_DEPTH, maxLineBytes: 2_000_000 })).toEqual({
      kind: 'bad',
      id: null,
      cause: 'too_deep',
      detail: 'limit: 64 levels',
    });
  });

  it('answers a too-long line with line_too_long, the limit, and the id of its tail', () => {
    const splitter = createLineSplitter(100);
    const text = `{"jsonrpc":"2.0","method":"x","params":{"p":"${'a'.repeat(500)}"},"id":"late"}\n`;
    const [tooLong] = splitter.push(new TextEncoder().encode(text));
    expect(parseLine(tooLong!, { maxDepth: 10, maxLineBytes: 100 })).toEqual({
      kind: 'bad',
      id: 'late',
      cause: 'line_too_long',
      detail: 'limit: 100 bytes',
    });
  });

  it('keeps a bridge id "b-N" of a bad line for the caller', () => {
    expect(parse('{"jsonrpc":"2.0","id":"b-1","result":{"action":"accept","x":"\\ud800"}}')).toEqual({
      kind: 'bad',
      id: 'b-1',
      cause: 'parse_error',
    });
  });
});
