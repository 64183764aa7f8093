/**
 * A large result parsed without its long content strings (src/protocol/lazyStrings.ts): the
 * string is read from the line's bytes when first read, and a line that is not valid JSON gets
 * the answer of the whole parse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUtf8, parseLazily } from '../../src/protocol/lazyStrings.js';
import { resultMemberSpans } from '../../src/protocol/memberSpans.js';
import { parseLine } from '../../src/protocol/parseLine.js';
import type { Inbound } from '../../src/protocol/parseLine.js';

const MIB = 1024 * 1024;
const limits = { maxDepth: 64, maxLineBytes: 64 * MIB };
const encoder = new TextEncoder();
const x = 'x'.repeat(MIB);

const parse = (bytes: Uint8Array): Inbound => parseLine({ kind: 'line', bytes }, limits);
const lineWith = (text: string): Uint8Array =>
  encoder.encode(
    `{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"${text}"}]},"id":"u-1"}`,
  );
const blockOf = (inbound: Inbound): Record<string, unknown> => {
  if (inbound.kind !== 'frame' || !('result' in inbound.frame)) throw new Error(inbound.kind);
  return (inbound.frame.result['content'] as Record<string, unknown>[])[0] as Record<string, unknown>;
};

describe('parseLine of a large result', () => {
  it('reads the text of a 1 MiB block from the bytes when it is first read', () => {
    const block = blockOf(parse(lineWith(`${x}\\n\\u00e9`)));
    expect(typeof Object.getOwnPropertyDescriptor(block, 'text')?.get).toBe('function');
    expect(block['text']).toBe(`${x}\né`);
    expect(Object.keys(block)).toEqual(['type', 'text']);
    block['text'] = 'replaced';
    expect(block).toEqual({ type: 'text', text: 'replaced' });
  });

  it('answers parse_error for a control character, a bad escape or bad UTF-8 in the text', () => {
    for (const bad of ['\t', '\\x', '\\u12G4', '\\']) {
      expect(parse(lineWith(`${x}${bad}y`)).kind).toBe('bad');
    }
    const bytes = lineWith(`${x}ab`);
    bytes[bytes.indexOf(0x61)] = 0xc3; // a lead byte followed by 'b'
    expect(parse(bytes)).toMatchObject({ kind: 'bad', cause: 'parse_error' });
    const ok = lineWith(`${x}\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041é€😀`);
    expect(blockOf(parse(ok))['text']).toBe(`${x}"\\/\b\f\n\r\tAé€😀`);
  });

  it('leaves a short text, a result without content blocks and a skeleton error to the whole parse', () => {
    const spansOf = (text: string) => resultMemberSpans(encoder.encode(text))!;
    const short = '{"result":{"content":[{"type":"text","text":"short"}]}}';
    expect(parseLazily(encoder.encode(short), spansOf(short))).toBeUndefined();
    const noArray = `{"result":{"content":"${x}"}}`;
    expect(parseLazily(encoder.encode(noArray), spansOf(noArray), 8)).toBeUndefined();
    const broken = `{"result":{"content":[{"text":"${x}"}], "n": 01}}`;
    expect(parseLazily(encoder.encode(broken), spansOf(broken), 8)).toBeUndefined();
    expect(parse(encoder.encode(broken)).kind).toBe('bad');
  });
});

describe('parseLazily (property)', () => {
  it('parses a line exactly when JSON.parse does, to the same value', () => {
    const piece = fc.constantFrom(
      'a',
      'é',
      '\\',
      'u',
      '0',
      'F',
      'g',
      '"',
      '\\"',
      '\t',
      '\n',
      '\u0001',
      'n',
      '/',
      '\ud83d\ude00',
    );
    let lazy = 0;
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 14 }),
        fc.constantFrom('', ',"n":1', '}', ']'),
        (parts, tail) => {
          const text = `{"result":{"content":[{"type":"text","text":"${parts.join('')}"${tail}}]},"id":1}`;
          const bytes = encoder.encode(text);
          const spans = resultMemberSpans(bytes);
          let whole: unknown;
          try {
            whole = JSON.parse(text);
          } catch {
            whole = undefined;
          }
          const value = spans === undefined ? undefined : parseLazily(bytes, spans, 2);
          if (value === undefined) return;
          lazy += 1;
          expect(JSON.stringify(value)).toBe(JSON.stringify(whole));
        },
      ),
      { seed: 21, numRuns: 5_000 },
    );
    expect(lazy).toBeGreaterThan(500);
  });

  it('answers as before for a large line that is too deep, with and without bad UTF-8', () => {
    const deep = encoder.encode(
      `{"result":{"content":[{"text":"${x}"}]},"a":${'['.repeat(70)}${']'.repeat(70)}}`,
    );
    expect(parse(deep)).toMatchObject({ kind: 'bad', cause: 'too_deep' });
    deep[40] = 0xff;
    expect(parse(deep)).toMatchObject({ kind: 'bad', cause: 'parse_error' });
  });
});

describe('isUtf8 (property)', () => {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const decodes = (bytes: Uint8Array): boolean => {
    try {
      decoder.decode(bytes);
      return true;
    } catch {
      return false;
    }
  };
  it('decides as a fatal TextDecoder does', () => {
    const edge = fc.constantFrom(
      0x7f,
      0x80,
      0x8f,
      0x90,
      0x9f,
      0xa0,
      0xbf,
      0xc0,
      0xc1,
      0xc2,
      0xe0,
      0xed,
      0xef,
      0xf0,
      0xf4,
      0xf5,
      0xff,
    );
    const bytes = fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), edge), { maxLength: 10 });
    fc.assert(
      fc.property(bytes, (list) => {
        const b = Uint8Array.from(list);
        expect(isUtf8(b)).toBe(decodes(b));
      }),
      { seed: 21, numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(isUtf8(encoder.encode(s))).toBe(true);
      }),
      { seed: 21, numRuns: 2_000 },
    );
  });
});
