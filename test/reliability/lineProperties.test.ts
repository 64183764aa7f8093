/**
 * Properties of the line layer (docs/testing.md#testing-properties) that the unit tests of the splitter and of
 * the id recovery do not cover: whole client transcripts cut at random places through the
 * decodeLines operator (no byte lost, nothing reordered, the same values as one chunk), and the
 * first-line selection of embedded mode on random first lines (docs/embedded.md#embedded-selection).
 *
 * Runs: MCP_BRIDGE_PROPERTY_RUNS (default 200 here) with MCP_BRIDGE_PROPERTY_SEED.
 */
import fc from 'fast-check';
import { Buffer } from 'node:buffer';
import { from, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { decodeLines } from '../../operators/decodeLines.js';
import { classifyOpening } from '../../src/embed/opening.js';
import type { Inbound } from '../../src/protocol/parseLine.js';

const RUNS = Number(process.env['MCP_BRIDGE_PROPERTY_RUNS'] ?? 200);
const SEED = Number(process.env['MCP_BRIDGE_PROPERTY_SEED'] ?? 20261130);
const MAX_LINE_BYTES = 512;
const MAX_DEPTH = 8;

/** Runs chunks through decodeLines synchronously. */
function decode(chunks: readonly Uint8Array[]): Inbound[] {
  let out: Inbound[] = [];
  from(chunks)
    .pipe(decodeLines({ maxLineBytes: MAX_LINE_BYTES, maxDepth: MAX_DEPTH }), toArray())
    .subscribe((values) => (out = values));
  return out;
}

/** Cuts bytes at the given points (taken modulo the length). */
function cut(bytes: Uint8Array, points: readonly number[]): Uint8Array[] {
  const at = [...new Set(points.map((point) => point % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of [...at, bytes.length]) {
    chunks.push(bytes.slice(start, point));
    start = point;
  }
  return chunks;
}

const id = fc.oneof(
  fc.integer({ min: -5, max: 1e6 }),
  fc.string({ maxLength: 6 }).map((s) => `r-${s}`),
);
const text = fc.string({ unit: 'grapheme', maxLength: 30 });
/** One client line and what it must decode to: `frame`, `blank` (nothing), or the cause of a bad line. */
const lineArb: fc.Arbitrary<{ bytes: Buffer; expect: string }> = fc.oneof(
  fc
    .record({ id, method: fc.constantFrom('ping', 'tools/call', 'initialize'), text })
    .map(({ id: value, method, text: t }) => ({
      bytes: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: value, method, params: { t } })),
      expect: 'frame',
    })),
  fc.record({ id, text }).map(({ id: value, text: t }) => ({
    bytes: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: value, result: { action: 'accept', t } })),
    expect: 'frame',
  })),
  text.map((t) => ({
    bytes: Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { t } })),
    expect: 'frame',
  })),
  fc.constantFrom('', ' ', '\t \t').map((blank) => ({ bytes: Buffer.from(blank), expect: 'blank' })),
  fc.integer({ min: MAX_LINE_BYTES + 1, max: 3 * MAX_LINE_BYTES }).map((length) => ({
    bytes: Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'a'.repeat(length)}"}}`),
    expect: 'line_too_long',
  })),
  fc.constant({
    bytes: Buffer.from(`{"a":${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}}`),
    expect: 'too_deep',
  }),
  fc.constant({ bytes: Buffer.from([0x7b, 0xff, 0x7d]), expect: 'parse_error' }),
  fc.constant({
    bytes: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\\udc00"}}'),
    expect: 'parse_error',
  }),
  fc.constant({
    bytes: Buffer.from('{"jsonrpc":"1.0","id":1,"method":"ping"}'),
    expect: 'invalid_request_shape',
  }),
);

describe('decodeLines over whole transcripts (property)', () => {
  it('gives the same values in the same order however the bytes are cut', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { maxLength: 25 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 60 }),
        (lines, crlf, points) => {
          const eol = Buffer.from(crlf ? '\r\n' : '\n');
          const whole = Buffer.concat(lines.flatMap((line) => [line.bytes, eol]));
          const once = decode([whole]);
          const cutUp = decode(cut(whole, points));
          expect(cutUp).toEqual(once);
          // No line lost: one value for each line that is not blank, of the expected kind.
          const wanted = lines.filter((line) => line.expect !== 'blank').map((line) => line.expect);
          expect(once.map((value) => (value.kind === 'bad' ? value.cause : value.kind))).toEqual(wanted);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('decodes one byte at a time like one chunk, without a final newline too', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { minLength: 1, maxLength: 8 }), (lines) => {
        const whole = Buffer.concat(
          lines.flatMap((line, i) => (i === 0 ? [line.bytes] : [Buffer.from('\n'), line.bytes])),
        );
        const bytes = [...whole].map((byte) => Uint8Array.of(byte));
        expect(decode(bytes)).toEqual(decode([whole]));
      }),
      { seed: SEED, numRuns: Math.max(20, Math.floor(RUNS / 4)) },
    );
  });
});

describe('the first-line selection of embedded mode (property, docs/embedded.md#embedded-selection)', () => {
  /** A first line and the path it selects. */
  const opening: fc.Arbitrary<{ bytes: Buffer; path: string }> = fc.oneof(
    fc.record({ id, text, spaces: fc.constantFrom('', ' ', '  ') }).map(({ id: value, text: t, spaces }) => ({
      bytes: Buffer.from(
        `{${spaces}"params":{"protocolVersion":"2025-11-25","x":${JSON.stringify(t)}},"method":${spaces}"initialize","id":${JSON.stringify(value)},"jsonrpc":"2.0"}`,
      ),
      path: 'legacy',
    })),
    id.map((value) => ({
      bytes: Buffer.from(
        JSON.stringify({ jsonrpc: '2.0', id: value, method: 'server/discover', params: { _meta: {} } }),
      ),
      path: 'discover',
    })),
    fc.constantFrom('', ' ', '\t').map((blank) => ({ bytes: Buffer.from(blank), path: 'skip' })),
    fc.integer({ min: MAX_LINE_BYTES + 1, max: 2 * MAX_LINE_BYTES }).map((length) => ({
      bytes: Buffer.from(
        `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"${'i'.repeat(length)}"}}`,
      ),
      path: 'skip',
    })),
    fc
      .constantFrom(
        // Not exactly a request with the method initialize: the modern path.
        '{"jsonrpc":"2.0","method":"initialize"}',
        '{"jsonrpc":"2.0","id":1,"method":"Initialize"}',
        '{"jsonrpc":"2.0","id":1,"method":"initialize "}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"initialize"}}',
        '{"jsonrpc":"2.0","id":1,"result":{"method":"initialize"}}',
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"\\ud800"}}',
        '{"jsonrpc":"1.0","id":1,"method":"initialize"}',
        '{"jsonrpc":"2.0","id":1,"method":"initialize"',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}}`,
        'initialize',
      )
      .map((line) => ({ bytes: Buffer.from(line), path: 'modern' })),
    fc.string({ maxLength: 40 }).map((line) => ({ bytes: Buffer.from(`#${line}`), path: 'modern' })),
    fc.uint8Array({ minLength: 1, maxLength: 20 }).map((raw) => ({
      bytes: Buffer.concat([Buffer.from('{"method":"initialize",'), Buffer.from(raw.map((b) => b | 0x80))]),
      path: 'modern',
    })),
  );

  it('selects the path the first line asks for, whatever its bytes', () => {
    fc.assert(
      fc.property(
        fc.array(opening, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (lines, points) => {
          const whole = Buffer.concat(lines.flatMap((line) => [line.bytes, Buffer.from('\n')]));
          const decoded = decode(cut(whole, points));
          const paths = decoded.map(classifyOpening);
          // Blank lines give no value at all; every other line gives its path.
          const wanted = lines.filter((line) => line.bytes.toString().trim() !== '').map((line) => line.path);
          expect(paths).toEqual(wanted);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
