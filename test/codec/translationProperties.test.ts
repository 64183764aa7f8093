/**
 * Property tests of the translation of results (docs/testing.md#testing-properties, fuzz target 2):
 * the serverInfo name is never empty, remote icons are only data:, forwarded params never hold
 * _meta or task, shaped results never hold resultType/ttlMs/cacheScope, and a list nextCursor
 * is always a string.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildInitializeResult } from '../../src/codec/initializeResult.js';
import { forwardParams } from '../../src/codec/meta.js';
import { shapeResult } from '../../src/codec/results.js';
import type { JsonObject, JsonValue } from '../../src/protocol/jsonrpc.js';
import { FORWARDED_METHODS } from '../../src/bridge/forward.js';

const json = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;
const icon = fc.record({
  src: fc.constantFrom('data:,x', 'DATA:image/png;base64,AA', 'https://x/i.png', 'file:///i', ''),
});
const icons = fc.oneof(fc.array(fc.oneof(icon, json), { maxLength: 3 }), json);
const item = fc.record(
  {
    name: fc.oneof(fc.string(), json),
    icons,
    inputSchema: fc.oneof(json, fc.constant<JsonValue>({ type: 'array', items: false })),
    outputSchema: json,
    ttlMs: json,
  },
  { requiredKeys: [] },
);
const modernMembers = { resultType: fc.constant('complete'), ttlMs: json, cacheScope: json, _meta: json };
const result = fc.record(
  {
    ...modernMembers,
    tools: fc.oneof(fc.array(item, { maxLength: 3 }), json),
    prompts: fc.array(item, { maxLength: 3 }),
    resources: fc.array(item, { maxLength: 3 }),
    resourceTemplates: fc.array(item, { maxLength: 3 }),
    nextCursor: json,
    content: fc.oneof(
      fc.array(
        fc.oneof(fc.record({ type: fc.constantFrom('text', 'resource_link', 'image'), icons }), json),
        {
          maxLength: 3,
        },
      ),
      json,
    ),
    structuredContent: json,
    messages: fc.array(
      fc.record({
        role: fc.constant('user'),
        content: fc.record({ type: fc.constant('resource_link'), icons }),
      }),
      {
        maxLength: 2,
      },
    ),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<JsonObject>;
const method = fc.constantFrom(...FORWARDED_METHODS);
const LIST_MEMBER: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

const isDataSrc = (icon: JsonValue): boolean => {
  const src = (icon as JsonObject)['src'];
  return typeof src === 'string' && src.toLowerCase().startsWith('data:');
};

/** Every `icons` array at any depth of `value`, except inside tool schemas. */
function* iconArrays(value: JsonValue | undefined, key = ''): Generator<JsonValue[]> {
  if (key === 'inputSchema' || key === 'outputSchema' || key === 'structuredContent') return;
  if (Array.isArray(value)) for (const v of value) yield* iconArrays(v);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'icons' && Array.isArray(v)) yield v;
      yield* iconArrays(v, k);
    }
  }
}

describe('translation of results (properties)', () => {
  it('never leaves resultType, ttlMs, cacheScope or a non-string nextCursor in a shaped result', () => {
    fc.assert(
      fc.property(method, result, fc.boolean(), (m, r, remote) => {
        const shaped = shapeResult(m, r, { remote });
        if (typeof shaped['invalid'] === 'string' && Object.keys(shaped).length === 1) return;
        const out = shaped as JsonObject;
        for (const key of ['resultType', 'ttlMs', 'cacheScope']) expect(out).not.toHaveProperty([key]);
        const member = LIST_MEMBER[m];
        if (member !== undefined) {
          expect(Array.isArray(out[member])).toBe(true);
          if ('nextCursor' in out) expect(typeof out['nextCursor']).toBe('string');
        }
        if (m === 'tools/call') expect(Array.isArray(out['content'])).toBe(true);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('keeps only data: icons for a remote upstream, and never an empty icons array', () => {
    fc.assert(
      fc.property(method, result, (m, r) => {
        const shaped = shapeResult(m, r, { remote: true }) as JsonObject;
        if (typeof shaped['invalid'] === 'string' && Object.keys(shaped).length === 1) return;
        // Icons are rewritten where the reference names them: list items, resource links.
        const scope: JsonValue[] = [];
        const member = LIST_MEMBER[m];
        if (member !== undefined && Array.isArray(shaped[member])) scope.push(shaped[member]);
        if (m === 'tools/call' || m === 'prompts/get') {
          const blocks = m === 'tools/call' ? shaped['content'] : shaped['messages'];
          if (Array.isArray(blocks))
            scope.push(blocks.filter((b) => JSON.stringify(b).includes('resource_link')));
        }
        for (const arrays of scope.map((s) => [...iconArrays(s)])) {
          for (const list of arrays) {
            expect(list.length).toBeGreaterThan(0);
            for (const i of list) expect(isDataSrc(i)).toBe(true);
          }
        }
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('always gives a serverInfo with a non-empty name', () => {
    fc.assert(
      fc.property(json, fc.string(), fc.boolean(), (info, fallbackName, remote) => {
        const discover = { _meta: { 'io.modelcontextprotocol/serverInfo': info } };
        const built = buildInitializeResult(discover, { fallbackName, bridgeVersion: '0.1.0', remote });
        const name = (built['serverInfo'] as JsonObject)['name'];
        expect(typeof name === 'string' && name.trim() !== '').toBe(true);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('never forwards _meta or task in params', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('_meta', 'task', 'name', 'arguments', 'cursor'), json),
        (params) => {
          const forwarded = forwardParams(params);
          expect(forwarded).not.toHaveProperty(['_meta']);
          expect(forwarded).not.toHaveProperty(['task']);
        },
      ),
      { seed: 42, numRuns: 200 },
    );
  });
});
