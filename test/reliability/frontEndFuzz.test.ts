/**
 * The fuzz target "the lines of the client through the front end"
 * (docs/testing.md#testing-properties) as a fast-check property on virtual time.
 *
 * Random client lines (requests of every method, responses with random ids including `b-` ids,
 * notifications, garbage, invalid UTF-8, deep nesting, long lines) go through decodeLines and
 * createBridge, in front of an in-memory upstream that follows a random script (answers, echoes,
 * progress, input_required with random input requests, errors, silence, stream failures, listen
 * streams with events). A client answers the bridge's requests by a random policy. After the end of
 * input (long after the last line, so that every time limit has passed), the invariants hold:
 *
 * - every output is one JSON-RPC frame valid for 2025-11-25 and free of 2026-07-28 members;
 * - every frame sent upstream is valid for 2026-07-28;
 * - bridge requests only with `b-` ids, each id once; cancellations only for bridge requests that
 *   were sent, each once; each elicitation/complete once, for a URL that was asked;
 * - no id gets more than one response; every request that the client did not cancel gets exactly
 *   one; bad lines with a `b-` id get none;
 * - the output completes (no stream error) within the grace period after the end of input;
 * - no log line holds frame contents.
 *
 * Runs: MCP_BRIDGE_PROPERTY_RUNS (default 150) with the seed MCP_BRIDGE_PROPERTY_SEED; the soak
 * runs more.
 */
import fc from 'fast-check';
import { Buffer } from 'node:buffer';
import {
  NEVER,
  Observable,
  ReplaySubject,
  Subject,
  concat,
  defer,
  map,
  mergeMap,
  of,
  takeUntil,
  throwError,
  timer,
} from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { decodeLines } from '../../operators/decodeLines.js';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import type { BridgeLimits } from '../../src/bridge/config.js';
import { createBridge } from '../../src/bridge/createBridge.js';
import type { ExchangeEvent, UpstreamConnection } from '../../src/ports/upstream.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';
import type { Cause } from '../../src/protocol/errors.js';
import type {
  Frame,
  JsonObject,
  JsonValue,
  NotificationFrame,
  RequestFrame,
} from '../../src/protocol/jsonrpc.js';
import { validateModernRequest } from '../helpers/schemas.js';
import { clientFrameProblems } from '../helpers/tap.js';
import { ajvInputChecks } from '../../src/codec/input/schemas.js';

const PROPERTY_RUNS = Number(process.env['MCP_BRIDGE_PROPERTY_RUNS'] ?? 150);
const PROPERTY_SEED = Number(process.env['MCP_BRIDGE_PROPERTY_SEED'] ?? 20261130);

/** A text that must never reach a log line: it is in arguments, answers and results. */
const MARKER = 'fuzz-marker-7f3a';
const MAX_LINE_BYTES = 2048;
const MAX_DEPTH = 10;
/** The quiet time after the last line: every limit below has passed by then. */
const QUIET_MS = 200_000;
const LIMITS: BridgeLimits = {
  ...DEFAULT_LIMITS,
  maxInFlight: 6,
  discoverTimeoutMs: 3_000,
  listTimeoutMs: 4_000,
  readTimeoutMs: 4_000,
  callTimeoutMs: 5_000,
  inputTimeoutMs: 3_000,
  maxRounds: 4,
  maxInputRequests: 4,
};

const J = (value: unknown): string => JSON.stringify(value);
const stringOr = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

// ---------------------------------------------------------------------------------------------
// The upstream script.

type Failure = Extract<Cause, 'closed' | 'transport_failed' | 'invalid_response'>;
type Behavior =
  | {
      readonly type: 'result';
      readonly delay: number;
      readonly progress: number;
      readonly log: boolean;
      readonly extra: number;
    }
  | {
      readonly type: 'input';
      readonly delay: number;
      readonly inputRequests: JsonValue;
      readonly requestState?: string;
    }
  | { readonly type: 'error'; readonly delay: number; readonly code: number; readonly data: boolean }
  | { readonly type: 'silent' }
  | { readonly type: 'fail'; readonly delay: number; readonly code: Failure }
  | { readonly type: 'invalid'; readonly delay: number };
type ListenBehavior = { readonly ack: number; readonly events: readonly string[]; readonly refuse: boolean };

interface UpstreamScript {
  readonly discover: 'ok' | 'error' | 'silent' | 'fail' | 'invalid';
  readonly capabilities: JsonObject;
  readonly requests: readonly Behavior[];
  readonly listens: readonly ListenBehavior[];
  /** The virtual time at which the upstream process exits, if it does. */
  readonly exitAt: number | undefined;
}

const delay = fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 6_000 }));

const FORM: JsonObject = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Tell us.',
    requestedSchema: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 }, age: { type: 'integer' } },
      required: ['name'],
    },
  },
};
const URLS = [
  'https://example.com/sign-in',
  'http://127.0.0.1:8080/x',
  'http://localhost/a',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'https://a\\b.example.com/',
  'http://user:pw@localhost/',
  'http://127.0.0.1.example.com/',
  'not a url',
];
const SAMPLE_MESSAGES: JsonValue = [{ role: 'user', content: { type: 'text', text: 'Hi' } }];
const inputRequestArb: fc.Arbitrary<JsonValue> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom<JsonValue>(
      FORM,
      FORM,
      {
        method: 'elicitation/create',
        params: { message: 'Confirm?', requestedSchema: { type: 'object', properties: {} } },
      },
      { method: 'sampling/createMessage', params: { messages: SAMPLE_MESSAGES, maxTokens: 10 } },
      { method: 'roots/list' },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(...URLS).map((url): JsonValue => ({
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Open it.', url },
    })),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<JsonValue>(
      {
        method: 'sampling/createMessage',
        params: {
          messages: SAMPLE_MESSAGES,
          maxTokens: 10,
          tools: [{ name: 'clock', inputSchema: { type: 'object' } }],
        },
      },
      {
        method: 'elicitation/create',
        params: { mode: 'form', message: 'x', requestedSchema: { type: 'string' } },
      },
      { method: 'elicitation/create', params: 'not an object' },
      { method: 'tasks/get', params: {} },
      'not an object',
    ),
  },
);
const inputRequestsArb: fc.Arbitrary<JsonValue> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), inputRequestArb, {
      minKeys: 1,
      maxKeys: 3,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), inputRequestArb, { minKeys: 5, maxKeys: 6 }),
  },
  { weight: 1, arbitrary: fc.constantFrom<JsonValue>(null, [], 'x') },
);
const behaviorArb: fc.Arbitrary<Behavior> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      type: fc.constant('result' as const),
      delay,
      progress: fc.integer({ min: 0, max: 3 }),
      log: fc.boolean(),
      extra: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        type: fc.constant('input' as const),
        delay,
        inputRequests: inputRequestsArb,
        requestState: fc.constantFrom('state-1', 'state-2'),
      },
      { requiredKeys: ['type', 'delay', 'inputRequests'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('error' as const),
      delay,
      code: fc.constantFrom(-32042, -32602, -32603, -32601, -32021, 42),
      data: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ type: 'silent' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('fail' as const),
      delay,
      code: fc.constantFrom<Failure>('closed', 'transport_failed', 'invalid_response'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('invalid' as const), delay }) },
);
const LIST_EVENTS = [
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/cancelled',
  'notifications/message',
];
const listenArb: fc.Arbitrary<ListenBehavior> = fc.record({
  ack: fc.integer({ min: 0, max: 300 }),
  events: fc.array(fc.constantFrom(...LIST_EVENTS), { maxLength: 4 }),
  refuse: fc.constant(false),
});
const capabilitiesArb: fc.Arbitrary<JsonObject> = fc.record(
  {
    tools: fc.constantFrom<JsonObject>({}, { listChanged: true }),
    prompts: fc.constantFrom<JsonObject>({}, { listChanged: true }),
    resources: fc.constantFrom<JsonObject>({}, { listChanged: true, subscribe: true }, { subscribe: true }),
    logging: fc.constant({}),
    completions: fc.constant({}),
  },
  { requiredKeys: [] },
);
const scriptArb: fc.Arbitrary<UpstreamScript> = fc.record({
  discover: fc.oneof(
    { weight: 12, arbitrary: fc.constant('ok' as const) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('error' as const, 'silent' as const, 'fail' as const, 'invalid' as const),
    },
  ),
  capabilities: capabilitiesArb,
  requests: fc.array(behaviorArb, { minLength: 1, maxLength: 12 }),
  exitAt: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: undefined, freq: 5 }),
  listens: fc.array(
    fc.oneof(
      { weight: 5, arbitrary: listenArb },
      { weight: 1, arbitrary: listenArb.map((l) => ({ ...l, refuse: true })) },
    ),
    { minLength: 1, maxLength: 4 },
  ),
});

/** A valid 2026-07-28 complete result of `method`, with the members the bridge must strip. */
function completeResult(method: string, id: number, extra: number): JsonObject {
  const modern = { resultType: 'complete', ttlMs: 1000, cacheScope: 'private' };
  const meta = {
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' }, 'com.example/x': 1 },
  };
  const cursor = [{}, { nextCursor: null }, { nextCursor: 3 }, { nextCursor: 'next' }][extra % 4]!;
  switch (method) {
    case 'tools/list':
      return {
        ...modern,
        ...meta,
        ...cursor,
        tools: [
          { name: 't', inputSchema: { type: 'object', properties: { list: { type: 'array' } } } },
          { name: 'o', inputSchema: { type: 'object' }, outputSchema: { type: 'array' } },
        ],
      };
    case 'tools/call': {
      const structured = [
        {},
        { structuredContent: [1, 2] },
        { structuredContent: { text: MARKER } },
        { structuredContent: null },
      ][extra % 4]!;
      return { ...modern, ...meta, content: [{ type: 'text', text: `${MARKER} ${id}` }], ...structured };
    }
    case 'prompts/list':
      return { ...modern, ...cursor, prompts: [{ name: 'p' }] };
    case 'prompts/get':
      return { ...modern, messages: [{ role: 'user', content: { type: 'text', text: MARKER } }] };
    case 'resources/list':
      return { ...modern, ...cursor, resources: [{ uri: 'file:///a', name: 'a' }] };
    case 'resources/templates/list':
      return { ...modern, ...cursor, resourceTemplates: [{ uriTemplate: 'file:///{x}', name: 'x' }] };
    case 'resources/read':
      return { ...modern, contents: [{ uri: 'file:///a', text: MARKER }] };
    case 'completion/complete':
      return { ...modern, completion: { values: ['a', MARKER] } };
    default:
      return { ...modern };
  }
}

const response = (id: number, body: { result: JsonObject } | { error: JsonObject }): ExchangeEvent =>
  ({ type: 'response', frame: { jsonrpc: '2.0', id, ...body } }) as ExchangeEvent;
const notice = (method: string, params: JsonObject): ExchangeEvent => ({
  type: 'notification',
  frame: { jsonrpc: '2.0', method, params },
});

interface UpstreamRecord {
  readonly requests: RequestFrame[];
  closed: boolean;
}

function fakeUpstream(
  script: UpstreamScript,
  record: UpstreamRecord,
  scheduler: TestScheduler,
): UpstreamConnection {
  // Like the stdio connection: the exit fails every pending exchange and every later one.
  const exit = new ReplaySubject<{ code: number | null; signal: string | null }>(1);
  if (script.exitAt !== undefined) {
    scheduler.schedule(
      () => exit.next({ code: 3, signal: null }),
      Math.max(0, script.exitAt - scheduler.now()),
    );
  }
  const guarded = (exchange$: Observable<ExchangeEvent>): Observable<ExchangeEvent> =>
    new Observable<ExchangeEvent>((subscriber) => {
      const gone = exit.subscribe(() => subscriber.error(new BridgeError('upstream_exited')));
      if (subscriber.closed) return gone;
      const running = exchange$.subscribe(subscriber);
      return () => {
        gone.unsubscribe();
        running.unsubscribe();
      };
    });
  let nextId = 0;
  let nextBehavior = 0;
  let nextListen = 0;
  const notifications = new Subject<NotificationFrame>();

  const discover = (id: number): Observable<ExchangeEvent> => {
    switch (script.discover) {
      case 'ok':
        return timer(5).pipe(
          map(() =>
            response(id, {
              result: {
                resultType: 'complete',
                supportedVersions: ['2026-07-28'],
                capabilities: script.capabilities,
                ttlMs: 0,
                cacheScope: 'private',
                _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fuzz', version: '1.0.0' } },
              },
            }),
          ),
        );
      case 'error':
        return of(response(id, { error: { code: -32601, message: 'Method not found' } }));
      case 'silent':
        return NEVER;
      case 'fail':
        return throwError(() => new BridgeError('closed'));
      case 'invalid':
        return of(response(id, { result: { resultType: 'later' } }));
    }
  };

  const listen = (id: number, params: JsonObject): Observable<ExchangeEvent> => {
    const behavior = script.listens[nextListen++ % script.listens.length]!;
    const tag = { 'io.modelcontextprotocol/subscriptionId': id };
    if (behavior.refuse)
      return timer(behavior.ack).pipe(map(() => response(id, { error: { code: -32603, message: 'No.' } })));
    const filter = (params['notifications'] ?? {}) as JsonObject;
    const uris = Array.isArray(filter['resourceSubscriptions']) ? filter['resourceSubscriptions'] : [];
    const events = behavior.events.map((method, index) => {
      if (method === 'notifications/cancelled') return notice(method, { requestId: id, reason: 'bye' });
      if (method === 'notifications/resources/updated')
        return notice(method, {
          uri: stringOr(uris[index % Math.max(1, uris.length)], 'file:///a'),
          _meta: tag,
        });
      if (method === 'notifications/message')
        return notice(method, { level: 'error', data: MARKER, _meta: tag });
      return notice(method, { _meta: tag });
    });
    return concat(
      timer(behavior.ack).pipe(
        map(() => notice('notifications/subscriptions/acknowledged', { notifications: filter, _meta: tag })),
      ),
      timer(100).pipe(mergeMap(() => events)),
      NEVER,
    );
  };

  const behave = (id: number, method: string, params: JsonObject): Observable<ExchangeEvent> => {
    const behavior = script.requests[nextBehavior++ % script.requests.length]!;
    const meta = (params['_meta'] ?? {}) as JsonObject;
    switch (behavior.type) {
      case 'result': {
        // Progress 1..n, then n again: a value that does not increase must not reach the client.
        const values =
          behavior.progress === 0
            ? []
            : [...Array.from({ length: behavior.progress }, (_, i) => i + 1), behavior.progress];
        const steps = values.map((progress) =>
          notice('notifications/progress', { progressToken: id, progress, total: 3, message: 'step' }),
        );
        return timer(behavior.delay).pipe(
          mergeMap(() => {
            if (behavior.log && typeof meta['io.modelcontextprotocol/logLevel'] === 'string') {
              notifications.next({
                jsonrpc: '2.0',
                method: 'notifications/message',
                params: { level: 'error', logger: 'fuzz', data: MARKER },
              });
              notifications.next({
                jsonrpc: '2.0',
                method: 'notifications/message',
                params: { level: 'bogus', data: 1 },
              });
            }
            return [...steps, response(id, { result: completeResult(method, id, behavior.extra) })];
          }),
        );
      }
      case 'input': {
        const result: JsonObject = { resultType: 'input_required', inputRequests: behavior.inputRequests };
        if (behavior.requestState !== undefined) result['requestState'] = behavior.requestState;
        return timer(behavior.delay).pipe(map(() => response(id, { result })));
      }
      case 'error': {
        const error: JsonObject = { code: behavior.code, message: `upstream error ${behavior.code}` };
        if (behavior.data)
          error['data'] = { url: 'https://example.com/elicit', reason: 'invalid_request_state' };
        return timer(behavior.delay).pipe(map(() => response(id, { error })));
      }
      case 'silent':
        return NEVER;
      case 'fail':
        return timer(behavior.delay).pipe(mergeMap(() => throwError(() => new BridgeError(behavior.code))));
      case 'invalid':
        return timer(behavior.delay).pipe(map(() => response(id, { result: { resultType: 'later' } })));
    }
  };

  return {
    request(method, params) {
      return guarded(
        defer(() => {
          const id = ++nextId;
          record.requests.push({ jsonrpc: '2.0', id, method, params });
          if (method === 'server/discover') return discover(id);
          if (method === 'subscriptions/listen') return listen(id, params);
          return behave(id, method, params);
        }),
      );
    },
    notifications$: notifications.asObservable(),
    exit$: exit.asObservable(),
    remote: false,
    close: () => {
      record.closed = true;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The client.

type BadShape =
  'utf8' | 'surrogate' | 'deep' | 'long' | 'longTail' | 'truncated' | 'version' | 'control' | 'array';
type ClientEvent =
  | {
      readonly kind: 'request';
      readonly method: string;
      readonly variant: number;
      readonly stringId: boolean;
      readonly token: boolean;
    }
  | {
      readonly kind: 'notification';
      readonly which: 'initialized' | 'cancel' | 'roots' | 'other';
      readonly target: number;
    }
  | { readonly kind: 'answer'; readonly id: string | number | null; readonly error: boolean }
  | {
      readonly kind: 'bad';
      readonly shape: BadShape;
      readonly bridgeId: number | undefined;
      readonly stringId: boolean;
    }
  | { readonly kind: 'garbage'; readonly text: string }
  | { readonly kind: 'burst'; readonly count: number }
  | { readonly kind: 'blank' };
type Timed = { readonly after: number; readonly event: ClientEvent };

const METHODS = [
  'initialize',
  'ping',
  'logging/setLevel',
  'tools/list',
  'tools/call',
  'tools/call',
  'tools/call',
  'tools/call',
  'prompts/get',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
  'resources/subscribe',
  'resources/unsubscribe',
  'server/discover',
  'tasks/list',
];
const eventArb: fc.Arbitrary<ClientEvent> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('request' as const),
      method: fc.constantFrom(...METHODS),
      variant: fc.nat(5),
      stringId: fc.boolean(),
      token: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('notification' as const),
      which: fc.constantFrom(
        'initialized' as const,
        'cancel' as const,
        'cancel' as const,
        'roots' as const,
        'other' as const,
      ),
      target: fc.nat(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      id: fc.oneof(
        fc.integer({ min: 1, max: 8 }).map((n) => `b-${n}`),
        fc.integer({ min: 0, max: 9 }),
        fc.constant(null),
        fc.constant('x-1'),
      ),
      error: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('bad' as const),
      shape: fc.constantFrom<BadShape>(
        'utf8',
        'surrogate',
        'deep',
        'long',
        'longTail',
        'truncated',
        'version',
        'control',
        'array',
      ),
      bridgeId: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
      stringId: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('garbage' as const),
      text: fc.string({
        unit: fc.constantFrom('a', '{', '}', '[', ']', ':', ',', ' ', '1', 'é'),
        maxLength: 40,
      }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'blank' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('burst' as const), count: fc.integer({ min: 4, max: 10 }) }),
  },
);
const timedArb: fc.Arbitrary<Timed> = fc.record({
  after: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 30 }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 8_000 }) },
  ),
  event: eventArb,
});

type Policy =
  'accept' | 'acceptEmpty' | 'decline' | 'cancel' | 'error' | 'badLine' | 'none' | 'twice' | 'wrongShape';
const policyArb = fc.constantFrom<Policy>(
  'accept',
  'accept',
  'accept',
  'acceptEmpty',
  'decline',
  'cancel',
  'error',
  'badLine',
  'none',
  'twice',
  'wrongShape',
);

const caseArb = fc.record({
  initialize: fc.integer({ min: 0, max: 5 }).map((n) => n > 0),
  capabilities: fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constant<JsonObject>({
        elicitation: { form: {}, url: {} },
        sampling: {},
        roots: { listChanged: true },
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          elicitation: fc.constantFrom<JsonObject>({}, { form: {} }, { url: {} }, { form: {}, url: {} }),
          sampling: fc.constantFrom<JsonObject>({}, { tools: {} }),
          roots: fc.constant({ listChanged: true }),
        },
        { requiredKeys: [] },
      ),
    },
  ),
  events: fc.array(timedArb, { minLength: 5, maxLength: 60 }),
  script: scriptArb,
  policies: fc.array(policyArb, { minLength: 1, maxLength: 8 }),
  answerDelays: fc.array(fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 5_000 })), {
    minLength: 1,
    maxLength: 8,
  }),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

const LEVELS = ['debug', 'info', 'warning', 'error', 'bogus'];

function requestParams(
  event: Extract<ClientEvent, { kind: 'request' }>,
  capabilities: JsonObject,
): JsonObject | undefined {
  const meta: JsonObject = event.token
    ? { progressToken: event.variant % 2 === 0 ? 0 : 'p-1', 'vscode.x': 1 }
    : {};
  if (event.variant === 5) meta['io.modelcontextprotocol/protocolVersion'] = '2026-07-28';
  const withMeta = (params: JsonObject): JsonObject =>
    Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params;
  switch (event.method) {
    case 'initialize':
      return { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'fuzz', version: '1' } };
    case 'logging/setLevel':
      return { level: LEVELS[event.variant % LEVELS.length]! };
    case 'tools/call':
      return withMeta({ name: 't', arguments: { text: MARKER }, task: {} });
    case 'prompts/get':
      return withMeta({ name: 'p' });
    case 'resources/read':
      return withMeta({ uri: 'file:///a' });
    case 'completion/complete':
      return withMeta({ ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: 'x' } });
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return event.variant === 4 ? {} : { uri: ['file:///a', 'file:///b', 'file:///c'][event.variant % 3]! };
    default:
      return event.variant === 5 || event.token ? withMeta({}) : undefined;
  }
}

function badLine(shape: BadShape, id: string | number): Buffer {
  const head = `{"jsonrpc":"2.0","id":${J(id)},"method":"ping"`;
  switch (shape) {
    case 'utf8':
      return Buffer.concat([
        Buffer.from(`${head},"params":{"x":"`),
        Buffer.from([0xff, 0xc3, 0x28]),
        Buffer.from('"}}'),
      ]);
    case 'surrogate':
      return Buffer.from(`${head},"params":{"x":"\\ud800"}}`);
    case 'deep':
      return Buffer.from(`${head},"params":{"x":${'['.repeat(MAX_DEPTH + 2)}${']'.repeat(MAX_DEPTH + 2)}}}`);
    case 'long':
      return Buffer.from(`${head},"params":{"x":"${'a'.repeat(MAX_LINE_BYTES + 10)}"}}`);
    case 'longTail':
      return Buffer.from(
        `{"jsonrpc":"2.0","method":"ping","params":{"x":"${'a'.repeat(MAX_LINE_BYTES + 10)}"},"id":${J(id)}}`,
      );
    case 'truncated':
      return Buffer.from(`${head},"params":{"x":`);
    case 'version':
      return Buffer.from(`{"jsonrpc":"1.0","id":${J(id)},"method":"ping"}`);
    case 'control':
      return Buffer.from(`${head},"params":{"x":"a\u0001b"}}`);
    case 'array':
      return Buffer.from(`{"jsonrpc":"2.0","id":${J(id)},"method":["ping"]}`);
  }
}

/** The answer of the client to a bridge request under a policy (undefined: no answer). */
function answerLines(
  policy: Policy,
  request: Frame & { id: string; method: string; params?: JsonObject },
): Buffer[] {
  const params = request.params ?? {};
  const ok = (result: JsonValue): Buffer => Buffer.from(J({ jsonrpc: '2.0', id: request.id, result }));
  const accept = (): Buffer => {
    if (request.method === 'sampling/createMessage') {
      return ok({ model: 'fuzz', role: 'assistant', content: { type: 'text', text: MARKER } });
    }
    if (request.method === 'roots/list')
      return ok({ roots: [{ uri: `file:///${MARKER}` }, { uri: 'vscode-vfs://x' }] });
    if (params['mode'] === 'url') return ok({ action: 'accept', content: { secret: MARKER } });
    const schema = (params['requestedSchema'] ?? {}) as JsonObject;
    const properties = (schema['properties'] ?? {}) as JsonObject;
    const content = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => {
        const p = property as JsonObject;
        if (Array.isArray(p['enum'])) return [name, p['enum'][0]!];
        return [name, p['type'] === 'integer' ? 36 : `${MARKER}-Ada`];
      }),
    );
    return ok({ action: 'accept', content });
  };
  switch (policy) {
    case 'accept':
      return [accept()];
    case 'twice':
      return [accept(), accept()];
    case 'acceptEmpty':
      return [ok({ action: 'accept' })];
    case 'decline':
    case 'cancel':
      return [ok({ action: policy, content: { leaked: MARKER } })];
    case 'error':
      // The message of a client error is logged by design (docs/input-rounds.md#input-answer-checks): no marker.
      return [
        Buffer.from(
          J({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message: 'the user refused' } }),
        ),
      ];
    case 'badLine':
      return [Buffer.from(`{"jsonrpc":"2.0","id":${J(request.id)},"result":{"action":"acc`)];
    case 'wrongShape':
      return [ok({ action: 'maybe', foo: MARKER })];
    case 'none':
      return [];
  }
}

// ---------------------------------------------------------------------------------------------
// One run and its invariants.

interface Outcome {
  readonly frames: { readonly at: number; readonly frame: Frame }[];
  readonly upstream: UpstreamRecord;
  readonly logs: string[];
  readonly completedAt: number | undefined;
  readonly error: unknown;
  readonly errorAt: number | undefined;
  readonly eofAt: number;
  readonly exitAt: number | undefined;
  /** Ids (JSON) of lines that expect exactly one response unless cancelled: method (none for a bad line), time. */
  readonly expected: Map<string, { readonly method: string | undefined; readonly at: number }>;
  readonly cancelled: Set<string>;
  readonly bridgeBadLines: Set<string>;
  /** When the client first answered each bridge request (any line with its id, after it was sent). */
  readonly answeredAt: Map<string, number>;
}

function runCase(input: Case): Outcome {
  const scheduler = new TestScheduler(() => undefined);
  const upstream: UpstreamRecord = { requests: [], closed: false };
  const frames: { at: number; frame: Frame }[] = [];
  const logs: string[] = [];
  const expected = new Map<string, { method: string | undefined; at: number }>();
  const cancelled = new Set<string>();
  const bridgeBadLines = new Set<string>();
  const answeredAt = new Map<string, number>();
  const sentBridgeIds = new Set<string>();
  /** Notes the first answer of the client to a bridge request that was sent. */
  const answering = (id: unknown): void => {
    const key = J(id);
    if (sentBridgeIds.has(key) && !answeredAt.has(key)) answeredAt.set(key, scheduler.now());
  };
  let completedAt: number | undefined;
  let error: unknown;
  let errorAt: number | undefined;
  let eofAt = 0;

  scheduler.run(() => {
    const chunks = new Subject<Uint8Array>();
    const bridge = createBridge(
      { version: '0.0.0-fuzz', fallbackName: 'fuzz', limits: LIMITS },
      {
        connect: () => of(fakeUpstream(input.script, upstream, scheduler)),
        logger: { log: (_scope, _level, text) => void logs.push(text), enabled: () => true },
        checks: ajvInputChecks,
      },
    );
    const send = (line: Buffer | string): void => {
      chunks.next(Buffer.concat([Buffer.from(line), Buffer.from('\n')]));
    };
    let bridgeRequests = 0;
    const ids: string[] = [];
    let nextId = 1;
    const freshId = (stringId: boolean): string | number => {
      const n = nextId++;
      return stringId ? `r-${n}` : n;
    };

    chunks
      .pipe(
        decodeLines({ maxLineBytes: MAX_LINE_BYTES, maxDepth: MAX_DEPTH }),
        bridge,
        takeUntil(timer(10 * QUIET_MS)),
      )
      .subscribe({
        next: (frame) => {
          frames.push({ at: scheduler.now(), frame });
          // The client answers each bridge request by its policy, after its delay.
          if ('method' in frame && 'id' in frame && typeof frame.id === 'string') {
            sentBridgeIds.add(J(frame.id));
            const index = bridgeRequests++;
            const policy = input.policies[index % input.policies.length]!;
            const wait = input.answerDelays[index % input.answerDelays.length]!;
            const lines = answerLines(policy, frame as Frame & { id: string; method: string });
            const id = frame.id;
            if (lines.length > 0) {
              scheduler.schedule(() => {
                answering(id);
                lines.forEach(send);
              }, wait);
            }
          }
        },
        error: (thrown: unknown) => {
          error = thrown;
          errorAt = scheduler.now();
        },
        complete: () => {
          completedAt = scheduler.now();
        },
      });

    const timeline: Timed[] = input.initialize
      ? [
          {
            after: 0,
            event: { kind: 'request', method: 'initialize', variant: 0, stringId: false, token: false },
          },
          { after: 20, event: { kind: 'notification', which: 'initialized', target: 0 } },
          ...input.events,
        ]
      : input.events;
    let at = 0;
    for (const { after, event } of timeline) {
      at += after;
      scheduler.schedule(() => {
        switch (event.kind) {
          case 'request': {
            const id = freshId(event.stringId);
            ids.push(J(id));
            expected.set(J(id), { method: event.method, at: scheduler.now() });
            const params = requestParams(event, input.capabilities);
            send(
              J(
                params === undefined
                  ? { jsonrpc: '2.0', id, method: event.method }
                  : { jsonrpc: '2.0', id, method: event.method, params },
              ),
            );
            return;
          }
          case 'notification': {
            if (event.which === 'cancel') {
              const target = ids.length === 0 ? J(event.target) : ids[event.target % ids.length]!;
              cancelled.add(target);
              send(
                `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${target},"reason":"${MARKER}"}}`,
              );
              return;
            }
            const method = {
              initialized: 'notifications/initialized',
              roots: 'notifications/roots/list_changed',
              other: 'notifications/whatever',
            }[event.which];
            send(J({ jsonrpc: '2.0', method }));
            return;
          }
          case 'answer':
            answering(event.id);
            send(
              J(
                event.error
                  ? { jsonrpc: '2.0', id: event.id, error: { code: -1, message: 'no' } }
                  : { jsonrpc: '2.0', id: event.id, result: { action: 'accept', content: { name: MARKER } } },
              ),
            );
            return;
          case 'bad': {
            const id = event.bridgeId === undefined ? freshId(event.stringId) : `b-${event.bridgeId}`;
            if (event.bridgeId === undefined) expected.set(J(id), { method: undefined, at: scheduler.now() });
            else {
              bridgeBadLines.add(J(id));
              answering(id);
            }
            send(badLine(event.shape, id));
            return;
          }
          case 'garbage':
            send(event.text);
            return;
          case 'blank':
            send(' \t');
            return;
          case 'burst': {
            // Many calls in one chunk: above the in-flight limit some are refused at once (§2.9).
            const lines = Array.from({ length: event.count }, () => {
              const id = freshId(false);
              ids.push(J(id));
              expected.set(J(id), { method: 'tools/call', at: scheduler.now() });
              return J({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: {} } });
            });
            send(lines.join('\n'));
            return;
          }
        }
      }, at);
    }
    eofAt = at + QUIET_MS;
    scheduler.schedule(() => chunks.complete(), eofAt);
  });
  return {
    frames,
    upstream,
    logs,
    completedAt,
    error,
    errorAt,
    eofAt,
    exitAt: input.script.exitAt,
    expected,
    cancelled,
    bridgeBadLines,
    answeredAt,
  };
}

/** Every invariant of the front end fuzz target; throws with the first violations. */
function checkInvariants(outcome: Outcome): void {
  const problems: string[] = [];
  const fail = (text: string): void => void problems.push(text);
  // The output ends with the end of input, or with an upstream exit after initialize (§2.14).
  let endAt: number;
  if (outcome.error !== undefined) {
    endAt = outcome.errorAt ?? 0;
    if (!(outcome.error instanceof BridgeError) || outcome.error.code !== 'upstream_exited') {
      fail(`the output failed: ${outcome.error instanceof Error ? outcome.error.message : J(outcome.error)}`);
    } else if (outcome.exitAt === undefined || endAt > outcome.exitAt + LIMITS.shutdownGraceMs) {
      fail(`the output failed with upstream_exited at ${endAt}, upstream exit at ${String(outcome.exitAt)}`);
    }
  } else if (outcome.completedAt === undefined) {
    endAt = Infinity;
    fail('the output did not complete after the end of input');
  } else {
    endAt = outcome.completedAt;
    if (endAt > outcome.eofAt + LIMITS.shutdownGraceMs) {
      fail(`the output completed ${endAt - outcome.eofAt} ms after the end of input`);
    }
  }
  if (!outcome.upstream.closed && outcome.upstream.requests.length > 0) fail('the upstream was not closed');

  const responses = new Map<string, number>();
  const sentBridge = new Set<string>();
  const cancelledBridge = new Set<string>();
  const urlIds = new Set<string>();
  const completed = new Set<string>();
  for (const { at, frame } of outcome.frames) {
    const line = J(frame);
    if (line.includes('\n') || JSON.parse(line) === undefined) fail(`not one line: ${line.slice(0, 80)}`);
    const method =
      'id' in frame && !('method' in frame) ? outcome.expected.get(J(frame.id))?.method : undefined;
    for (const problem of clientFrameProblems(frame as unknown as Record<string, unknown>, method)) {
      fail(`${line.slice(0, 200)}: ${problem}`);
    }
    if ('method' in frame) {
      if ('id' in frame) {
        if (typeof frame.id !== 'string' || !/^b-\d+$/.test(frame.id))
          fail(`a bridge request with the id ${J(frame.id)}`);
        if (sentBridge.has(J(frame.id))) fail(`the bridge request id ${J(frame.id)} twice`);
        sentBridge.add(J(frame.id));
        const params = frame.params ?? {};
        if (params['mode'] === 'url') urlIds.add(J(params['elicitationId']));
        if ('task' in params) fail('a bridge request with task');
      } else if (frame.method === 'notifications/cancelled') {
        const target = J(frame.params?.['requestId']);
        if (!sentBridge.has(target)) fail(`a cancellation of ${target}, which was never sent`);
        if (cancelledBridge.has(target)) fail(`two cancellations of ${target}`);
        // A request the client answered is resolved: it is never cancelled after that (§4.5).
        const answered = outcome.answeredAt.get(target);
        if (answered !== undefined && at > answered) fail(`a cancellation of ${target} after its answer`);
        cancelledBridge.add(target);
      } else if (frame.method === 'notifications/elicitation/complete') {
        const id = J(frame.params?.['elicitationId']);
        if (!urlIds.has(id)) fail(`elicitation/complete for ${id}, which was not asked`);
        if (completed.has(id)) fail(`two elicitation/complete for ${id}`);
        completed.add(id);
      } else if (
        ![
          'notifications/progress',
          'notifications/message',
          'notifications/tools/list_changed',
          'notifications/prompts/list_changed',
          'notifications/resources/list_changed',
          'notifications/resources/updated',
        ].includes(frame.method)
      ) {
        fail(`the notification ${frame.method}`);
      }
    } else {
      const id = J(frame.id);
      responses.set(id, (responses.get(id) ?? 0) + 1);
    }
  }
  for (const [id, count] of responses) {
    if (id === 'null') continue;
    if (outcome.bridgeBadLines.has(id) || id.startsWith('"b-')) fail(`a response with the bridge id ${id}`);
    else if (!outcome.expected.has(id)) fail(`a response to ${id}, which the client never sent`);
    else if (count > 1) fail(`${count} responses to ${id}`);
  }
  for (const [id, { method, at }] of outcome.expected) {
    // A line after the end of the output (an upstream exit) gets nothing.
    if (!outcome.cancelled.has(id) && !responses.has(id) && at < endAt) {
      fail(`no response to ${id} (${method ?? 'bad line'})`);
    }
  }
  for (const request of outcome.upstream.requests) {
    for (const problem of validateModernRequest(request)) fail(`upstream ${request.method}: ${problem}`);
  }
  for (const text of outcome.logs) if (text.includes(MARKER)) fail(`a log line with frame contents: ${text}`);
  if (problems.length > 0) throw new Error(problems.slice(0, 8).join('\n'));
}

describe('the lines of the client through the front end (property, §9.12 item 5)', () => {
  it(`keeps every invariant for ${PROPERTY_RUNS} random sessions`, () => {
    const kinds = new Map<string, number>();
    let upstream = 0;
    let sessions = 0;
    fc.assert(
      fc.property(caseArb, (input) => {
        const outcome = runCase(input);
        sessions += 1;
        upstream += outcome.upstream.requests.length;
        for (const { frame } of outcome.frames) {
          const kind =
            'method' in frame
              ? `${'id' in frame ? 'request' : 'notification'} ${frame.method}`
              : 'error' in frame
                ? `error ${stringOr((frame.error.data as JsonObject | undefined)?.['cause'], 'upstream')}`
                : 'result';
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        }
        checkInvariants(outcome);
      }),
      { seed: PROPERTY_SEED, numRuns: PROPERTY_RUNS },
    );
    const frames = [...kinds.values()].reduce((a, b) => a + b, 0);
    console.log(
      `front end property: ${sessions} sessions (seed ${PROPERTY_SEED}), ${frames} client frames and ` +
        `${upstream} upstream requests checked\n` +
        [...kinds]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([kind, n]) => `  ${kind}: ${n}`)
          .join('\n'),
    );
    // The random sessions reach the rules they are meant to reach.
    for (const kind of [
      'request elicitation/create',
      'request sampling/createMessage',
      'request roots/list',
      'notification notifications/cancelled',
      'notification notifications/progress',
      'notification notifications/elicitation/complete',
      'error too_many_requests',
      'error input_timeout',
      'error timeout',
      'error upstream_exited',
      'error line_too_long',
      'error too_deep',
    ]) {
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThan(0);
    }
  });
});
