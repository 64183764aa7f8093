import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEPT_BYTES, createLineSplitter } from '../../src/protocol/lines.js';
import type { RawLine } from '../../src/protocol/lines.js';

const enc = new TextEncoder();
const bytes = (text: string): Uint8Array => enc.encode(text);
const text = (line: RawLine): string => {
  if (line.kind !== 'line') throw new Error(`expected a line, got ${line.kind}`);
  return new TextDecoder().decode(line.bytes);
};

/** Feeds `chunks` and the end of input; returns every line. */
function split(max: number, chunks: readonly Uint8Array[]): RawLine[] {
  const splitter = createLineSplitter(max);
  return [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()];
}

describe('createLineSplitter', () => {
  it('splits lines on \\n and joins a line split across chunks', () => {
    const lines = split(100, [bytes('{"a"'), bytes(':1}\n{"b":2}\n{"c"'), bytes(':3}\n')]);
    expect(lines.map(text)).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('removes one trailing \\r, also when the \\r and the \\n come in different chunks', () => {
    expect(split(100, [bytes('a\r\n'), bytes('b\r'), bytes('\nc\r\r\n')]).map(text)).toEqual([
      'a',
      'b',
      'c\r',
    ]);
  });

  it('returns empty lines as empty byte arrays (the parser skips them)', () => {
    expect(split(100, [bytes('\n\r\n\n')]).map(text)).toEqual(['', '', '']);
  });

  it('returns the last unterminated line at the end of input', () => {
    const splitter = createLineSplitter(100);
    expect(splitter.push(bytes('one\ntwo'))).toHaveLength(1);
    expect(splitter.end().map(text)).toEqual(['two']);
    expect(splitter.end()).toEqual([]);
  });

  it('gives nothing at the end of input after a terminated line or an empty chunk', () => {
    const splitter = createLineSplitter(100);
    splitter.push(bytes('x\n'));
    expect(splitter.push(new Uint8Array(0))).toEqual([]);
    expect(splitter.end()).toEqual([]);
  });

  it('accepts a line of exactly the limit, also with a \\r that does not count', () => {
    expect(split(5, [bytes('12345\n'), bytes('1234'), bytes('5\r'), bytes('\n')]).map(text)).toEqual([
      '12345',
      '12345',
    ]);
  });

  it('reports a line one byte above the limit as too_long with its length', () => {
    const [line] = split(5, [bytes('123456\n')]);
    expect(line).toEqual({ kind: 'too_long', length: 6, head: bytes('123456'), tail: bytes('123456') });
  });

  it('keeps the first and the last 256 bytes of a long line that streams in', () => {
    const body = 'h'.repeat(300) + 'm'.repeat(5000) + 't'.repeat(300);
    const chunks = body.match(/.{1,7}/gs)!.map(bytes);
    const [line] = split(1000, [...chunks, bytes('\r\nnext\n')]);
    expect(line?.kind).toBe('too_long');
    if (line?.kind !== 'too_long') return;
    expect(line.length).toBe(5600);
    expect(new TextDecoder().decode(line.head)).toBe('h'.repeat(256));
    expect(new TextDecoder().decode(line.tail)).toBe('t'.repeat(256));
  });

  it('fills the head past the limit when the limit is below 256 bytes', () => {
    const [line] = split(10, [bytes('a'.repeat(8)), bytes('b'.repeat(400)), bytes('\n')]);
    if (line?.kind !== 'too_long') throw new Error('expected too_long');
    expect(line.head).toEqual(bytes('a'.repeat(8) + 'b'.repeat(248)));
    expect(line.tail).toEqual(bytes('b'.repeat(256)));
  });

  it('continues with the next line after a long one', () => {
    const lines = split(4, [bytes('123456789\nok\n')]);
    expect(lines.map((l) => l.kind)).toEqual(['too_long', 'line']);
    expect(text(lines[1]!)).toBe('ok');
  });

  it('copies the start of an unfinished line, so a later change of the chunk does not reach it', () => {
    const splitter = createLineSplitter(100);
    const chunk = bytes('abc\nde');
    splitter.push(chunk);
    chunk.fill(0x7a);
    expect(splitter.push(bytes('f\n')).map(text)).toEqual(['def']);
  });

  it('refuses a limit that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => createLineSplitter(bad)).toThrow(RangeError);
  });
});

describe('createLineSplitter properties', () => {
  // Lines of bytes without '\n', with many '\r' to exercise the trailing '\r' rule.
  const lineArb = fc
    .array(
      fc.oneof(
        fc.integer({ min: 0, max: 255 }).filter((b) => b !== 0x0a),
        fc.constant(0x0d),
      ),
      {
        maxLength: 700,
      },
    )
    .map((list) => Uint8Array.from(list));

  const inputArb = fc.record({
    max: fc.integer({ min: 1, max: 600 }),
    lines: fc.array(lineArb, { maxLength: 12 }),
    terminated: fc.boolean(),
    cuts: fc.array(fc.nat(), { maxLength: 40 }),
  });

  /** What the splitter must return for the given lines. */
  function expected(max: number, lines: readonly Uint8Array[], terminated: boolean): RawLine[] {
    const all = terminated || lines.at(-1)?.length !== 0 ? lines : lines.slice(0, -1);
    return all.map((raw) => {
      const content = raw.at(-1) === 0x0d ? raw.subarray(0, raw.length - 1) : raw;
      if (content.length <= max) return { kind: 'line', bytes: Uint8Array.from(content) };
      return {
        kind: 'too_long',
        length: content.length,
        head: Uint8Array.from(content.subarray(0, KEPT_BYTES)),
        tail: Uint8Array.from(content.subarray(Math.max(0, content.length - KEPT_BYTES))),
      };
    });
  }

  function chunked(input: Uint8Array, cuts: readonly number[]): Uint8Array[] {
    const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
    const chunks: Uint8Array[] = [];
    let start = 0;
    for (const point of [...points, input.length]) {
      chunks.push(input.slice(start, point));
      start = point;
    }
    return chunks;
  }

  it('never loses or reorders a byte, whatever the chunking', () => {
    fc.assert(
      fc.property(inputArb, ({ max, lines, terminated, cuts }) => {
        if (lines.length === 0) return;
        const joined = lines.flatMap((line, i) => [
          ...line,
          ...(i < lines.length - 1 || terminated ? [0x0a] : []),
        ]);
        const got = split(max, chunked(Uint8Array.from(joined), cuts));
        expect(got).toEqual(expected(max, lines, terminated));
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('keeps every line within the limit and head and tail within 256 bytes', () => {
    fc.assert(
      fc.property(inputArb, ({ max, lines, cuts }) => {
        const joined = lines.flatMap((line) => [...line, 0x0a]);
        for (const line of split(max, chunked(Uint8Array.from(joined), cuts))) {
          if (line.kind === 'line') expect(line.bytes.length).toBeLessThanOrEqual(max);
          else {
            expect(line.length).toBeGreaterThan(max);
            expect(line.head.length).toBeLessThanOrEqual(KEPT_BYTES);
            expect(line.tail.length).toBeLessThanOrEqual(KEPT_BYTES);
          }
        }
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});
