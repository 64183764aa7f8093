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
import { EMPTY_INPUT_SESSION, askFrame, planRound } from '../../src/codec/input/index.js';
import type { PlanContext } from '../../src/codec/input/index.js';
import { ajvInputChecks } from '../../src/codec/input/schemas.js';
import { gapReplay, toLegacyListenEvent } from '../../src/codec/listen.js';
import type { DeclaredLists } from '../../src/codec/listen.js';
import { toLegacyLogMessage } from '../../src/codec/logMessage.js';
import { toClientError } from '../../src/codec/upstreamError.js';
import type { ErrorObject, JsonObject, NotificationFrame } from '../../src/protocol/jsonrpc.js';
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

/** Every example file of a kind, parsed. */
const files = (kind: string): [string, JsonObject][] => {
  const dir = new URL(`${kind}/`, root);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => [`${kind}/${file}`, JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as JsonObject]);
};

/** A client that declares every input kind, sampling with tools included. */
const EVERY_KIND: JsonObject = {
  elicitation: { form: {}, url: {} },
  sampling: { tools: {}, context: {} },
  roots: { listChanged: true },
};
/** VS Code 1.140: no sampling.tools (docs/testing.md#testing-infrastructure). */
const VSCODE: JsonObject = { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } };

const planContext = (clientCapabilities: JsonObject): PlanContext => {
  let ids = 0;
  return {
    clientCapabilities,
    maxInputRequests: 16,
    session: EMPTY_INPUT_SESSION,
    nextElicitationId: () => `elicitation-${++ids}`,
    checks: ajvInputChecks,
  };
};

/** The official input requests, each as one entry of `inputRequests`. */
function inputRequestExamples(): [string, JsonObject][] {
  const strip = ({ id: _id, jsonrpc: _jsonrpc, ...rest }: JsonObject): JsonObject => rest;
  return [
    ...files('ElicitRequest').map(([name, value]): [string, JsonObject] => [name, strip(value)]),
    ...files('CreateMessageRequest').map(([name, value]): [string, JsonObject] => [name, strip(value)]),
    ...files('ListRootsRequest').map(([name, value]): [string, JsonObject] => [name, strip(value)]),
    ...files('ElicitRequestFormParams').map(([name, params]): [string, JsonObject] => [
      name,
      { method: 'elicitation/create', params },
    ]),
    ...files('ElicitRequestURLParams').map(([name, params]): [string, JsonObject] => [
      name,
      { method: 'elicitation/create', params },
    ]),
    ...files('CreateMessageRequestParams').map(([name, params]): [string, JsonObject] => [
      name,
      { method: 'sampling/createMessage', params },
    ]),
    ...Object.entries(files('InputRequests')[0]![1]).map(([key, value]): [string, JsonObject] => [
      `InputRequests/${key}`,
      value as JsonObject,
    ]),
  ];
}

/** The 2025-11-25 bridge requests of a planned round, checked like frames to the client. */
function expectValidAsks(result: JsonObject, capabilities: JsonObject): number {
  const planned = planRound(result, planContext(capabilities));
  if (!('plan' in planned)) throw new Error(`${planned.failure.cause}: ${planned.failure.detail}`);
  planned.plan.asks.forEach((ask, index) => {
    const frame = askFrame(`b-${index + 1}`, ask);
    expect(validateLegacyFrame(frame, 'toClient')).toEqual([]);
    expect(findModernLeaks(frame)).toEqual([]);
  });
  return planned.plan.asks.length;
}

describe('official 2026-07-28 input requests through the input planner', () => {
  it.each(files('InputRequiredResult'))('%s plans valid 2025-11-25 bridge requests', (_name, result) => {
    expect(validateDefinition('2026-07-28', 'InputRequiredResult', result)).toEqual([]);
    const asks = expectValidAsks(result, EVERY_KIND);
    const requests = result['inputRequests'];
    expect(asks).toBe(typeof requests === 'object' && requests !== null ? Object.keys(requests).length : 0);
  });

  it('the request-state-only example is retried with the state echoed and no inputResponses', () => {
    const [, result] = files('InputRequiredResult').find(([name]) => name.includes('request-state-only'))!;
    const planned = planRound(result, planContext(VSCODE));
    if (!('plan' in planned)) throw new Error('expected a plan');
    expect(planned.plan.asks).toEqual([]);
    expect(planned.plan.answersInputRequests).toBe(false);
    expect(planned.plan.requestState).toBe(result['requestState']);
  });

  it.each(inputRequestExamples())('%s becomes a valid 2025-11-25 bridge request', (_name, inputRequest) => {
    expect(
      expectValidAsks({ resultType: 'input_required', inputRequests: { key: inputRequest } }, EVERY_KIND),
    ).toBe(1);
  });

  it.each(inputRequestExamples())(
    '%s is asked of VS Code, or refused as undeclared',
    (_name, inputRequest) => {
      const result = { resultType: 'input_required', inputRequests: { key: inputRequest } };
      const planned = planRound(result, planContext(VSCODE));
      if ('failure' in planned) {
        // Only sampling with tools: VS Code does not declare sampling.tools (§4.3).
        expect(planned.failure.cause).toBe('undeclared_input_request');
        expect(planned.failure.detail).toContain('sampling.tools');
      } else {
        expect(expectValidAsks(result, VSCODE)).toBe(1);
      }
    },
  );
});

const ALL_LISTS: DeclaredLists = { tools: true, prompts: true, resources: true, subscribe: true };
const LISTEN_EVENTS = [
  'ToolListChangedNotification',
  'PromptListChangedNotification',
  'ResourceListChangedNotification',
  'ResourceUpdatedNotification',
];

describe('official 2026-07-28 notifications through the codec', () => {
  it.each(LISTEN_EVENTS.flatMap(files))('%s becomes a valid 2025-11-25 notification', (_name, frame) => {
    const event = toLegacyListenEvent(frame as unknown as NotificationFrame, ALL_LISTS);
    if (event === undefined) throw new Error('the event was dropped');
    expect(validateLegacyFrame(event, 'toClient')).toEqual([]);
    expect(findModernLeaks(event)).toEqual([]);
  });

  it.each(LISTEN_EVENTS.flatMap(files))('%s is dropped when its list was not declared', (_name, frame) => {
    const none: DeclaredLists = { tools: false, prompts: false, resources: false, subscribe: false };
    expect(toLegacyListenEvent(frame as unknown as NotificationFrame, none)).toBeUndefined();
  });

  it.each([...files('SubscriptionsAcknowledgedNotification'), ...files('CancelledNotification')])(
    '%s never reaches the client',
    (_name, frame) => {
      expect(toLegacyListenEvent(frame as unknown as NotificationFrame, ALL_LISTS)).toBeUndefined();
    },
  );

  it('the gap replay after an acknowledgment is valid for 2025-11-25', () => {
    for (const event of gapReplay(ALL_LISTS, ['file:///project/config.json'])) {
      expect(validateLegacyFrame(event, 'toClient')).toEqual([]);
    }
  });

  it.each(files('LoggingMessageNotification'))(
    '%s becomes a valid 2025-11-25 log message',
    (_name, frame) => {
      const message = toLegacyLogMessage(frame as unknown as NotificationFrame, 'debug');
      if (message === undefined) throw new Error('the message was dropped');
      expect(validateLegacyFrame(message, 'toClient')).toEqual([]);
      expect(findModernLeaks(message)).toEqual([]);
      // Without a level set by the client, nothing passes (§5.7).
      expect(toLegacyLogMessage(frame as unknown as NotificationFrame, undefined)).toBeUndefined();
    },
  );
});

const ERROR_KINDS = [
  'InternalError',
  'InvalidParamsError',
  'MethodNotFoundError',
  'ParseError',
  'HeaderMismatchError',
  'MissingRequiredClientCapabilityError',
  'UnsupportedProtocolVersionError',
];

describe('official 2026-07-28 errors through the codec', () => {
  it.each(ERROR_KINDS.flatMap(files))('%s becomes a valid 2025-11-25 error response', (_name, example) => {
    const error = ('error' in example ? example['error'] : example) as unknown as ErrorObject;
    const frame = { jsonrpc: '2.0', id: 1, error: toClientError(error) };
    expect(validateLegacyFrame(frame, 'toClient')).toEqual([]);
    expect(findModernLeaks(frame)).toEqual([]);
    // Upstream errors pass unchanged (§3.6): code, message and data.
    expect(frame.error).toEqual(error);
  });
});
