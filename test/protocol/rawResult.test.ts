import fc from 'fast-check';
import { firstValueFrom, of, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { encodeFrames } from '../../operators/encodeFrames.js';
import { classifyResult, shapeResult } from '../../src/codec/results.js';
import { downgradeResult } from '../../src/codec/downgrade.js';
import { parseLazily } from '../../src/protocol/lazyStrings.js';
import { resultMemberSpans } from '../../src/protocol/memberSpans.js';
import { parseLine } from '../../src/protocol/parseLine.js';
import type { Frame, JsonObject, JsonValue } from '../../src/protocol/jsonrpc.js';
import { carryRawResult, rawResultLine, rememberRawResult } from '../../src/protocol/rawResult.js';

const MIB = 1024 * 1024;
const encoder = new TextEncoder();
const limits = { maxDepth: 64, maxLineBytes: 64 * MIB };

/** The frame of a line through the real parser (which remembers large results). */
function frameOf(text: string): Frame {
  const inbound = parseLine({ kind: 'line', bytes: encoder.encode(text) }, limits);
  if (inbound.kind !== 'frame') throw new Error(`not a frame: ${inbound.kind}`);
  return inbound.frame;
}

/** The text of a line of pieces or of a string. */
function textOf(line: string | readonly (string | Uint8Array)[]): string {
  if (typeof line === 'string') return line;
  const decoder = new TextDecoder();
  return line.map((piece) => (typeof piece === 'string' ? piece : decoder.decode(piece))).join('');
}

/** A response line of exactly `size` bytes: the text member is padded with 'y'. */
function lineOfSize(size: number): string {
  const head = '{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"';
  const tail = '"}]}}';
  return `${head}${'y'.repeat(size - head.length - tail.length)}${tail}`;
}

describe('rawResultLine (with the parser and encodeFrames)', () => {
  it('a line of 1 MiB keeps its bytes: the unchanged member is a view of them, not a copy', async () => {
    const text = lineOfSize(MIB);
    const bytes = encoder.encode(text);
    const inbound = parseLine({ kind: 'line', bytes }, limits);
    if (inbound.kind !== 'frame' || !('result' in inbound.frame)) throw new Error('not a result');
    const frame = { jsonrpc: '2.0', id: 'client-9', result: inbound.frame.result } as Frame;
    const [line] = await firstValueFrom(of(frame).pipe(encodeFrames({ rawResults: true }), toArray()));
    expect(Array.isArray(line)).toBe(true);
    const views = (line as (string | Uint8Array)[]).filter((piece) => typeof piece !== 'string');
    expect(views).toHaveLength(1);
    expect((views[0] as Uint8Array).buffer).toBe(bytes.buffer);
    expect((views[0] as Uint8Array).length).toBe(MIB - 36);
    const received = JSON.parse(textOf(line as string)) as Record<string, unknown>;
    expect(received).toEqual({
      jsonrpc: '2.0',
      id: 'client-9',
      result: { content: [{ type: 'text', text: 'y'.repeat(MIB - 73) }] },
    });
    expect(textOf(line as string).endsWith('}}\n')).toBe(true);
  });

  it('the bytes travel with the result: a copied frame keeps them, and nothing enumerable shows them', () => {
    const frame = frameOf(lineOfSize(MIB));
    if (!('result' in frame)) throw new Error('not a result');
    // A compose step that copies frames keeps the same result object, and so its bytes.
    const copied = { ...frame, id: 'client-3' } as Frame;
    const line = rawResultLine(copied);
    expect(line).toHaveLength(3);
    expect(textOf(line ?? 'none')).toBe(`${lineOfSize(MIB).replace('"id":5', '"id":"client-3"')}\n`);
    expect(Object.keys(frame.result)).toEqual(['content']);
    expect(Object.getOwnPropertyNames(frame.result)).toEqual(['content']);
    // A copy of the result itself is a new value: written as JSON, unless shaping carried the bytes.
    expect(rawResultLine({ ...frame, result: { ...frame.result } })).toBeUndefined();
  });

  it('a line of 1 MiB less one byte is encoded as one string, as before', async () => {
    const frame = frameOf(lineOfSize(MIB - 1));
    expect(rawResultLine(frame)).toBeUndefined();
    const [line] = await firstValueFrom(of(frame).pipe(encodeFrames({ rawResults: true }), toArray()));
    expect(typeof line).toBe('string');
  });

  it('encodeFrames without rawResults writes strings also for a large result', async () => {
    const frame = frameOf(lineOfSize(MIB));
    const [line] = await firstValueFrom(of(frame).pipe(encodeFrames(), toArray()));
    expect(typeof line).toBe('string');
    expect(line).toBe(`${JSON.stringify(frame)}\n`);
  });

  it('a large line with a carriage return as whitespace is encoded as one string', () => {
    const text = lineOfSize(MIB).replace('"result":', '"result":\r');
    expect(rawResultLine(frameOf(text))).toBeUndefined();
  });

  it('a shaped copy writes its unchanged members raw and its changed or new members as JSON', () => {
    const big = 'é\\u00e9\\"'.repeat(MIB / 4);
    const text = `{"jsonrpc":"2.0","id":1,"result":{ "resultType" : "complete","content" : [{"type":"text","text":"${big}"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"u"},"keep":1},"dropped":true}}`;
    const frame = frameOf(text);
    if (!('result' in frame)) throw new Error('not a result');
    const original = frame.result;
    const shaped: JsonObject = {
      content: original['content'] as JsonValue,
      gone: undefined as unknown as JsonValue, // left out, as JSON.stringify leaves it out
      _meta: { keep: 1 },
      added: 'new',
    };
    const out = {
      jsonrpc: '2.0',
      id: 'c',
      result: carryRawResult(original, shaped),
      note: undefined,
    } as Frame;
    const line = textOf(rawResultLine(out) ?? 'none');
    // The unchanged member keeps the upstream's own spelling (spaces, escapes): it passed raw.
    expect(line).toContain(`"content" : [{"type":"text","text":"${big}"}]`);
    expect(line.startsWith('{"jsonrpc":"2.0","id":"c","result":{"content" : [')).toBe(true);
    expect(line.endsWith(',"_meta":{"keep":1},"added":"new"}}\n')).toBe(true);
    expect(JSON.parse(line)).toEqual({
      jsonrpc: '2.0',
      id: 'c',
      result: {
        content: [{ type: 'text', text: 'éé"'.repeat(MIB / 4) }],
        _meta: { keep: 1 },
        added: 'new',
      },
    });
  });

  it('a member with a number that may not round-trip is written from its parsed value', () => {
    const text = lineOfSize(MIB).replace('"result":{', '"result":{"inf" : 1E400,"k" : 1.5e3,"i" : 15,');
    const line = textOf(rawResultLine(frameOf(text)) ?? '');
    expect(
      line.startsWith('{"jsonrpc":"2.0","id":5,"result":{"inf":null,"k":1500,"i" : 15,"content":['),
    ).toBe(true);
  });

  it('a member replaced by an equal but new value is written as JSON, not raw', () => {
    const frame = frameOf(lineOfSize(MIB).replace('"result":{', '"result":{"n" : 1,'));
    if (!('result' in frame)) throw new Error('not a result');
    const shaped = { ...frame.result, content: [{ type: 'text', text: 'short' }] };
    const line = textOf(
      rawResultLine({ jsonrpc: '2.0', id: 2, result: carryRawResult(frame.result, shaped) }) ?? '',
    );
    expect(line).toBe(
      '{"jsonrpc":"2.0","id":2,"result":{"n" : 1,"content":[{"type":"text","text":"short"}]}}\n',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Property: for random results, random raw spellings and random shaping, the spliced line parses
// to the value that JSON.stringify of the shaped frame gives.

/** A small deterministic generator for the spelling choices of one case. */
const randomOf = (seed: number): (() => number) => {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
};

/** JSON text of `value` with random spaces and tabs between tokens and random \u escapes. */
function spell(value: JsonValue, random: () => number): string {
  const ws = (): string => (random() < 0.3 ? ([' ', '\t', '  '][Math.floor(random() * 3)] ?? '') : '');
  const str = (s: string): string => {
    let out = '"';
    for (const ch of JSON.stringify(s)
      .slice(1, -1)
      .match(/\\u[0-9a-f]{4}|\\.|[\s\S]/gu) ?? []) {
      const code = ch.codePointAt(0) ?? 0;
      if (ch.length === 1 && code < 0x10000 && random() < 0.2) {
        out += `\\u${code.toString(16).padStart(4, '0')}`;
      } else out += ch;
    }
    return `${out}"`;
  };
  if (Array.isArray(value))
    return `[${ws()}${value.map((v) => `${ws()}${spell(v, random)}${ws()}`).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value).map(
      (k) => `${ws()}${str(k)}${ws()}:${ws()}${spell(value[k] as JsonValue, random)}${ws()}`,
    );
    return `{${members.join(',')}${ws()}}`;
  }
  if (typeof value === 'string') return str(value);
  return JSON.stringify(value);
}

describe('rawResultLine (property)', () => {
  it('the spliced line parses to the same value as JSON.stringify of the shaped frame', () => {
    let checked = 0;
    let rawMembers = 0;
    const result = fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue(), { maxKeys: 8 });
    const action = fc.constantFrom('keep', 'drop', 'replace', 'copy');
    fc.assert(
      fc.property(
        result,
        fc.array(action, { maxLength: 8 }),
        fc.nat(),
        fc.jsonValue(),
        (obj, actions, seed, extra) => {
          const parsedResult = JSON.parse(JSON.stringify(obj)) as JsonObject;
          const text = `{"jsonrpc":"2.0","id":7,"result":${spell(parsedResult, randomOf(seed))}}`;
          const bytes = encoder.encode(text);
          const frame = JSON.parse(text) as Frame;
          rememberRawResult(frame, bytes, undefined, 0);
          if (!('result' in frame)) throw new Error('not a result');
          const original = frame.result;
          const shaped: JsonObject = {};
          Object.keys(original).forEach((key, i) => {
            const act = actions[i] ?? 'keep';
            const value = original[key] as JsonValue;
            if (act === 'drop') return;
            const next =
              act === 'replace'
                ? (extra as JsonValue)
                : act === 'copy'
                  ? (JSON.parse(JSON.stringify(value)) as JsonValue)
                  : value;
            Object.defineProperty(shaped, key, {
              value: next,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          });
          if (actions.length % 3 === 0) shaped['added by shaping'] = extra as JsonValue;
          const out: Frame = { jsonrpc: '2.0', id: 'client', result: carryRawResult(original, shaped) };
          const line = rawResultLine(out);
          if (line === undefined) throw new Error('no pieces');
          rawMembers += line.filter((piece) => typeof piece !== 'string').length;
          const spliced = textOf(line);
          expect(spliced.endsWith('\n')).toBe(true);
          expect(spliced.slice(0, -1)).not.toMatch(/[\r\n]/u);
          expect(JSON.stringify(JSON.parse(spliced))).toBe(JSON.stringify(out));
          checked += 1;
        },
      ),
      { seed: 13, numRuns: 300 },
    );
    expect(checked).toBeGreaterThanOrEqual(300);
    // The cases really took the raw path for many members.
    expect(rawMembers).toBeGreaterThanOrEqual(200);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: a result parsed without its long content strings (lazyStrings.ts) is the value of the
// whole parse, and the line written from it (shaping, downgrade, splice) is the parse path's.

describe('parseLazily and the splice (property)', () => {
  it('give the value and the line of the parse-and-stringify path, for every client revision', () => {
    let lazyCases = 0;
    let rawContent = 0;
    const longText = fc.string({ unit: 'binary', minLength: 6, maxLength: 40 });
    const block = fc.record(
      {
        type: fc.constantFrom('text', 'image', 'resource_link', 'audio', 'other'),
        text: longText,
        data: longText,
        mimeType: fc.string(),
        uri: fc.string(),
        name: fc.string(),
        _meta: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 }),
        n: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
      },
      { requiredKeys: ['type'] },
    );
    const result = fc.record(
      {
        resultType: fc.constantFrom('complete', 'input_required', 'other'),
        content: fc.array(fc.oneof(block, fc.jsonValue()), { maxLength: 4 }),
        structuredContent: fc.jsonValue(),
        isError: fc.boolean(),
        _meta: fc.dictionary(fc.constantFrom('io.modelcontextprotocol/serverInfo', 'k'), fc.jsonValue()),
        extra: fc.jsonValue(),
      },
      { requiredKeys: ['content'] },
    );
    const revision = fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05' as const);
    fc.assert(
      fc.property(result, fc.nat(), revision, fc.boolean(), (obj, seed, rev, remote) => {
        const parsedResult = JSON.parse(JSON.stringify(obj)) as JsonObject;
        const text = `{"jsonrpc":"2.0","result":${spell(parsedResult, randomOf(seed))},"id":"u-1"}`;
        const bytes = encoder.encode(text);
        const whole = JSON.parse(text) as Frame;
        const spans = resultMemberSpans(bytes);
        const lazy = spans === undefined ? undefined : (parseLazily(bytes, spans, 8) as Frame | undefined);
        if (lazy === undefined) return;
        lazyCases += 1;
        expect(JSON.stringify(lazy)).toBe(JSON.stringify(whole));
        rememberRawResult(lazy, bytes, spans, 0);
        const line = (frame: Frame): string => {
          if (!('result' in frame)) throw new Error('not a result');
          const classified = classifyResult('tools/call', frame.result);
          if (classified.kind !== 'complete') return classified.kind;
          const shaped = shapeResult('tools/call', classified.result, { remote });
          if ('invalid' in shaped && typeof shaped.invalid === 'string') return shaped.invalid;
          const forClient = downgradeResult('tools/call', shaped, rev);
          const out: Frame = { jsonrpc: '2.0', id: 3, result: carryRawResult(classified.result, forClient) };
          const pieces = rawResultLine(out);
          if (pieces?.some((p) => typeof p !== 'string' && p[0] === 0x22 && p.length > 0) === true)
            rawContent += 1;
          return pieces === undefined ? `${JSON.stringify(out)}\n` : textOf(pieces);
        };
        const spliced = line(lazy);
        const parsePath = line(whole);
        if (!spliced.startsWith('{')) expect(spliced).toBe(parsePath);
        else expect(JSON.stringify(JSON.parse(spliced))).toBe(parsePath.slice(0, -1));
      }),
      { seed: 21, numRuns: 400 },
    );
    // Many cases really took the lazy parse and wrote raw members.
    expect(lazyCases).toBeGreaterThanOrEqual(100);
    expect(rawContent).toBeGreaterThanOrEqual(40);
  });
});
