/**
 * Runs every official 2026-07-28 example result of the kinds the bridge forwards through the
 * codec, and checks the output against the 2025-11-25 schema and the deny-list of 2026-07-28
 * members. The examples come from the specification (test/fixtures/schemas/examples-2026-07-28).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildInitializeResult } from '../../src/codec/initializeResult.js';
import { buildUpstreamMeta, forwardParams } from '../../src/codec/meta.js';
import { classifyResult, shapeResult } from '../../src/codec/results.js';
import { toUpstreamClientCapabilities } from '../../src/codec/capabilities.js';
import type { JsonObject } from '../../src/protocol/jsonrpc.js';
import {
  findModernLeaks,
  validateDefinition,
  validateLegacyFrame,
  validateModernRequest,
} from '../helpers/schemas.js';

const root = new URL('../fixtures/schemas/examples-2026-07-28/', import.meta.url);

/** Every example of `kind`: the bare results, and the results inside `<kind>Response` examples. */
function examples(kind: string): [string, JsonObject][] {
  const read = (folder: string, pick: (value: JsonObject) => JsonObject): [string, JsonObject][] => {
    const dir = new URL(`${folder}/`, root);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => [
        `${folder}/${file}`,
        pick(JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as JsonObject),
      ]);
  };
  return [
    ...read(kind, (value) => value),
    ...read(`${kind}Response`, (value) => value['result'] as JsonObject),
  ];
}

const KINDS: Readonly<Record<string, string>> = {
  ListToolsResult: 'tools/list',
  CallToolResult: 'tools/call',
  ReadResourceResult: 'resources/read',
  GetPromptResult: 'prompts/get',
  ListPromptsResult: 'prompts/list',
  ListResourcesResult: 'resources/list',
  ListResourceTemplatesResult: 'resources/templates/list',
  CompleteResult: 'completion/complete',
};

const cases = Object.entries(KINDS).flatMap(([kind, method]) =>
  examples(kind).flatMap(([name, result]) =>
    [false, true].map((remote) => ({
      name: `${name} (${remote ? 'remote' : 'stdio'})`,
      kind,
      method,
      result,
      remote,
    })),
  ),
);

describe('official 2026-07-28 examples through the codec', () => {
  it('finds examples of every kind', () => {
    for (const kind of [...Object.keys(KINDS), 'DiscoverResult'])
      expect(examples(kind).length).toBeGreaterThan(0);
  });

  it.each(cases)('$name becomes a valid 2025-11-25 result', ({ kind, method, result, remote }) => {
    // One official example (ReadResourceResultResponse/read-resource-result-response.json) omits
    // the required ttlMs and cacheScope; the codec must cope with that too.
    const inputErrors = validateDefinition('2026-07-28', kind, result).filter(
      (error) => !/must have required property '(ttlMs|cacheScope)'$/.test(error),
    );
    expect(inputErrors).toEqual([]);
    const classified = classifyResult(method, result);
    if (classified.kind !== 'complete') throw new Error(`expected a complete result, got ${classified.kind}`);
    const shaped = shapeResult(method, classified.result, { remote });
    if ('invalid' in shaped && typeof shaped.invalid === 'string') throw new Error(shaped.invalid);
    expect(findModernLeaks(shaped)).toEqual([]);
    const errors = validateLegacyFrame({ jsonrpc: '2.0', id: 1, result: shaped }, 'toClient', method);
    expect(errors).toEqual([]);
    if (result['structuredContent'] !== undefined) {
      // The text copy keeps non-object structured content visible to the model (§3.6).
      const content = (shaped as JsonObject)['content'] as JsonObject[];
      expect(content.some((block) => block['type'] === 'text')).toBe(true);
    }
  });

  it.each(examples('DiscoverResult'))('%s becomes a valid initialize result', (_name, discover) => {
    expect(validateDefinition('2026-07-28', 'DiscoverResult', discover)).toEqual([]);
    for (const remote of [false, true]) {
      const result = buildInitializeResult(discover, { fallbackName: 'x', bridgeVersion: '0.1.0', remote });
      expect(findModernLeaks(result)).toEqual([]);
      expect(validateLegacyFrame({ jsonrpc: '2.0', id: 0, result }, 'toClient', 'initialize')).toEqual([]);
    }
  });

  it.each([
    'CallToolRequest',
    'ListToolsRequest',
    'GetPromptRequest',
    'ReadResourceRequest',
    'CompleteRequest',
    'DiscoverRequest',
    'SubscriptionsListenRequest',
  ])('the official %s examples are valid modern requests (helper check)', (kind) => {
    const dir = new URL(`${kind}/`, root);
    for (const file of readdirSync(dir)) {
      expect(validateModernRequest(JSON.parse(readFileSync(new URL(file, dir), 'utf8')))).toEqual([]);
    }
  });

  it('a tools/call of VS Code becomes a valid 2026-07-28 request', () => {
    const legacyParams: JsonObject = {
      name: 'get_weather',
      arguments: { location: 'New York' },
      task: {},
      _meta: { progressToken: 'p-1', 'vscode.conversationId': 'c', traceparent: 't', baggage: 'b' },
    };
    const meta = buildUpstreamMeta(
      {
        clientInfo: { name: 'Visual Studio Code', version: '1.120.0' },
        clientCapabilities: toUpstreamClientCapabilities({
          sampling: {},
          elicitation: { form: {}, url: {} },
        }),
        logLevel: 'info',
      },
      legacyParams['_meta'],
    );
    const frame = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { ...forwardParams(legacyParams), _meta: { ...meta, progressToken: 1 } },
    };
    expect(validateModernRequest(frame)).toEqual([]);
  });
});
