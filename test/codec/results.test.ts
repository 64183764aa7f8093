import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyResult, shapeResult } from '../../src/codec/results.js';
import type { JsonObject } from '../../src/protocol/jsonrpc.js';
import { findModernLeaks, validateLegacyFrame } from '../helpers/schemas.js';

interface Golden {
  readonly rule: string;
  readonly method: string;
  readonly remote: boolean;
  readonly input: JsonObject;
  readonly output: JsonObject;
  readonly itemsFixed?: [string, string][];
  /** Why the output is, on purpose, not valid against the 2025-11-25 schema. */
  readonly schemaExempt?: string;
}

const dir = new URL('./fixtures/shapeResult/', import.meta.url);
const goldens = readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .map((file) => [file, JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Golden] as const);

const shape = (method: string, result: JsonObject, remote = false): JsonObject | { invalid: string } =>
  shapeResult(method, result, { remote });

describe('shapeResult golden fixtures', () => {
  it.each(goldens)('%s', (_file, golden) => {
    const fixed: [string, string][] = [];
    const before = structuredClone(golden.input);
    const output = shapeResult(golden.method, golden.input, {
      remote: golden.remote,
      onItemsFixed: (tool, pointer) => fixed.push([tool, pointer]),
    });
    expect(output).toEqual(golden.output);
    expect(golden.input).toEqual(before);
    expect(fixed).toEqual(golden.itemsFixed ?? []);
    expect(findModernLeaks(output)).toEqual([]);
    const errors = validateLegacyFrame({ jsonrpc: '2.0', id: 1, result: output }, 'toClient', golden.method);
    if (golden.schemaExempt === undefined) expect(errors).toEqual([]);
    else expect(errors).not.toEqual([]);
  });
});

describe('classifyResult', () => {
  it('treats an absent or "complete" resultType as complete', () => {
    expect(classifyResult('tools/list', { tools: [] })).toEqual({ kind: 'complete', result: { tools: [] } });
    expect(classifyResult('tools/list', { resultType: 'complete', tools: [] }).kind).toBe('complete');
  });

  it.each(['tools/call', 'prompts/get', 'resources/read'])('accepts input_required for %s', (method) => {
    const result = { resultType: 'input_required', inputRequests: {} };
    expect(classifyResult(method, result)).toEqual({ kind: 'input_required', result });
  });

  it.each(['tools/list', 'completion/complete', 'server/discover'])(
    'refuses input_required for %s',
    (method) => {
      expect(classifyResult(method, { resultType: 'input_required' }).kind).toBe('invalid');
    },
  );

  it('refuses an unknown resultType and a result that is not an object', () => {
    expect(classifyResult('tools/call', { resultType: 'later' })).toEqual({
      kind: 'invalid',
      detail: 'tools/call: unknown resultType "later"',
    });
    expect(classifyResult('tools/call', { resultType: 5 }).kind).toBe('invalid');
    for (const value of [null, [], 'x', 1]) expect(classifyResult('tools/call', value).kind).toBe('invalid');
  });
});

describe('shapeResult', () => {
  it('removes resultType, ttlMs, cacheScope and serverInfo, and an emptied _meta', () => {
    const result = {
      resultType: 'complete',
      ttlMs: 1,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x', version: '1' } },
    };
    expect(shape('ping', result)).toEqual({});
    expect(shape('ping', { _meta: 'x' })).toEqual({});
  });

  it('copies an array structuredContent into a text block and removes it (2025-11-25 types it as an object)', () => {
    expect(shape('tools/call', { content: [], structuredContent: [1, 2, 3] })).toEqual({
      content: [{ type: 'text', text: '[1,2,3]' }],
    });
  });

  it.each([false, 0, ''])(
    'copies a falsy structuredContent %j into a text block and removes it',
    (structured) => {
      expect(shape('tools/call', { structuredContent: structured })).toEqual({
        content: [{ type: 'text', text: JSON.stringify(structured) }],
      });
    },
  );

  it('keeps an object structuredContent next to its text copy', () => {
    expect(shape('tools/call', { structuredContent: { a: 1 } })).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
  });

  it.each([
    ['tools/call', { content: 'x' }, 'tools/call: content is not an array'],
    ['tools/call', { content: [1] }, 'tools/call: a content block is not an object'],
    ['tools/list', {}, 'tools/list: the result has no tools array'],
    ['tools/list', { tools: [null] }, 'tools/list: an item of tools is not an object'],
    ['prompts/list', { prompts: {} }, 'prompts/list: the result has no prompts array'],
    ['resources/list', {}, 'resources/list: the result has no resources array'],
    ['resources/templates/list', {}, 'resources/templates/list: the result has no resourceTemplates array'],
    ['prompts/get', {}, 'prompts/get: the result has no messages array'],
    ['resources/read', { contents: null }, 'resources/read: the result has no contents array'],
    ['completion/complete', {}, 'completion/complete: the result has no completion object'],
  ])('says why a %s result %j is not valid', (method, result, detail) => {
    expect(shape(method, result as JsonObject)).toEqual({ invalid: detail });
  });

  it('drops an outputSchema that is not an object schema, keeps object ones', () => {
    const tools = [
      { name: 'a', inputSchema: { type: 'object' }, outputSchema: true },
      { name: 'b', inputSchema: { type: 'object' }, outputSchema: { type: 'string' } },
      { name: 'c', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
    ];
    expect(shape('tools/list', { tools })).toEqual({
      tools: [
        { name: 'a', inputSchema: { type: 'object' } },
        { name: 'b', inputSchema: { type: 'object' } },
        { name: 'c', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
      ],
    });
  });

  it('keeps an empty-string nextCursor (a valid cursor) and drops a null one', () => {
    expect(shape('prompts/list', { prompts: [], nextCursor: '' })).toEqual({ prompts: [], nextCursor: '' });
    expect(shape('prompts/list', { prompts: [], nextCursor: null })).toEqual({ prompts: [] });
  });

  it('filters icons only for a remote upstream, also on prompts and resources', () => {
    const item = { name: 'p', icons: [{ src: 'https://x/p.png' }, { src: 'data:,' }] };
    expect(shape('prompts/list', { prompts: [item] }, true)).toEqual({
      prompts: [{ name: 'p', icons: [{ src: 'data:,' }] }],
    });
    expect(shape('prompts/list', { prompts: [item] }, false)).toEqual({ prompts: [item] });
  });

  it('shapes prompts/get message content given as a list of blocks', () => {
    const link = { type: 'resource_link', uri: 'u', name: 'n', icons: [{ src: 'file:///x' }] };
    expect(shape('prompts/get', { messages: [{ role: 'user', content: [link] }] }, true)).toEqual({
      messages: [{ role: 'user', content: [{ type: 'resource_link', uri: 'u', name: 'n' }] }],
    });
  });

  it('passes results of other methods with only the 2026 members removed', () => {
    expect(shape('custom/method', { resultType: 'complete', a: { ttlMs: 1 } })).toEqual({ a: { ttlMs: 1 } });
  });

  it('passes a result that needs no change on as the same object, without a copy', () => {
    const call = { content: [{ type: 'text', text: 'x'.repeat(1024) }], _meta: { 'vscode.a': 1 } };
    expect(shape('tools/call', call)).toBe(call);
    const read = { contents: [{ uri: 'file:///a', text: 'a' }] };
    expect(shape('resources/read', read)).toBe(read);
    const tagged = { content: [], resultType: 'complete' };
    const shaped = shape('tools/call', tagged);
    expect(shaped).not.toBe(tagged);
    expect(shaped).toEqual({ content: [] });
    // The input is never changed in place.
    expect(tagged).toEqual({ content: [], resultType: 'complete' });
    const emptyMeta = { content: [], _meta: {} };
    expect(shape('tools/call', emptyMeta)).toEqual({ content: [] });
    const serverInfo = { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'n' }, k: 1 } };
    expect(shape('tools/call', serverInfo)).toEqual({ content: [], _meta: { k: 1 } });
  });
});
