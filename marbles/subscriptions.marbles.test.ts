import { NEVER, ignoreElements, merge, mergeMap, tap } from 'rxjs';
import type { Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../src/bridge/config.js';
import { createDispatcher } from '../src/bridge/dispatch.js';
import { createListenerSlot, startListener } from '../src/bridge/listener.js';
import type { Logger } from '../src/ports/logger.js';
import { createSession } from '../src/bridge/session.js';
import type { Session } from '../src/bridge/session.js';
import type { ExchangeEvent } from '../src/ports/upstream.js';
import {
  LISTEN_ACKNOWLEDGED,
  PROMPTS_LIST_CHANGED,
  RESOURCES_LIST_CHANGED,
  RESOURCE_UPDATED,
  TOOLS_LIST_CHANGED,
} from '../src/codec/listen.js';
import type { DeclaredLists } from '../src/codec/listen.js';
import { META_LOG_LEVEL, META_SUBSCRIPTION_ID } from '../src/protocol/metaKey.js';
import type { Frame, JsonObject, RequestFrame } from '../src/protocol/jsonrpc.js';
import { createFakeUpstream } from '../src/testing/fakeUpstream.js';
import type { FakeHandler, FakeRequest } from '../src/testing/fakeUpstream.js';
import { errWith, note, req, res } from '../src/testing/frames.js';
import { createProtocolScheduler } from '../src/testing/scheduler.js';

const scheduler = (): TestScheduler =>
  createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

const ALL: DeclaredLists = { tools: true, prompts: true, resources: true, subscribe: true };
const SUBSCRIBE_ONLY: DeclaredLists = { tools: false, prompts: false, resources: false, subscribe: true };
const A = 'file:///a.json';
const B = 'file:///b.json';
const tag = { _meta: { [META_SUBSCRIPTION_ID]: 1 } };

// Upstream listen exchanges (inbound, lower case): k acknowledgment, t tools list change,
// u/w updates of A/B, c upstream notifications/cancelled, x error reply.
const up: Record<string, ExchangeEvent> = {
  k: { type: 'notification', frame: note(LISTEN_ACKNOWLEDGED, { ...tag, notifications: {} }) },
  t: { type: 'notification', frame: note(TOOLS_LIST_CHANGED, tag) },
  u: { type: 'notification', frame: note(RESOURCE_UPDATED, { ...tag, uri: A }) },
  w: { type: 'notification', frame: note(RESOURCE_UPDATED, { ...tag, uri: B }) },
  c: { type: 'notification', frame: note('notifications/cancelled', { requestId: 1 }) },
  x: { type: 'response', frame: errWith(1, -32603, 'Subscription filter too large') },
};
// Client requests (inbound): s subscribe A, z subscribe B, q unsubscribe A; l tools/list,
// m resources/templates/list (forwarded, answered only where a test says so).
const client: Record<string, RequestFrame> = {
  s: req(11, 'resources/subscribe', { uri: A }),
  z: req(12, 'resources/subscribe', { uri: B }),
  q: req(13, 'resources/unsubscribe', { uri: A }),
  l: req(21, 'tools/list'),
  m: req(22, 'resources/templates/list'),
};
// Frames for the client (outbound, upper case).
const out: Record<string, Frame> = {
  T: note(TOOLS_LIST_CHANGED),
  P: note(PROMPTS_LIST_CHANGED),
  L: note(RESOURCES_LIST_CHANGED),
  U: note(RESOURCE_UPDATED, { uri: A }),
  W: note(RESOURCE_UPDATED, { uri: B }),
  S: res(11, {}),
  Z: res(12, {}),
  Q: res(13, {}),
  X: errWith(11, -32603, 'Subscription filter too large'),
  R: res(21, { tools: [] }),
  O: {
    jsonrpc: '2.0',
    id: 11,
    error: {
      code: -32603,
      message: 'The upstream server did not answer in time. See the Output channel of the server.',
      data: { cause: 'timeout', detail: 'resources/subscribe: no acknowledgment in 20 ms' },
    },
  },
};
const letter = (frame: Frame): string =>
  Object.keys(out).find((key) => JSON.stringify(out[key]) === JSON.stringify(frame)) ?? '?';

/**
 * A ready session whose upstream hands out `streams[n]` for the n-th listen request; any other
 * upstream request gets no answer.
 */
function setup(
  declared: DeclaredLists,
  streams: Observable<ExchangeEvent>[],
  limits = DEFAULT_LIMITS,
  onToolsList?: () => void,
) {
  const calls: FakeRequest[] = [];
  const order: string[] = [];
  const lines: string[] = [];
  const listen: FakeHandler = (_params, call) => {
    const n = calls.push(call) - 1;
    return (streams[n] ?? NEVER).pipe(
      tap({ unsubscribe: () => order.push(`cancel ${n}: ${call.cancelReason ?? ''}`) }),
    );
  };
  const upstream = createFakeUpstream({
    methods: {
      'subscriptions/listen': listen,
      'tools/list': () => {
        if (onToolsList === undefined) return NEVER;
        onToolsList();
        return { tools: [] };
      },
      'resources/templates/list': () => NEVER,
    },
  }).connection;
  const session: Session = createSession();
  session.becomeReady({
    client: { info: { name: 'vscode', version: '1' }, capabilities: {}, upstreamCapabilities: {} },
    revision: '2025-11-25',
    upstream,
    declared,
  });
  session.markInitialized();
  const logger: Logger = {
    log: (_scope, level, text) => lines.push(`${level}: ${text}`),
    enabled: () => false,
  };
  const ctx = {
    session,
    deps: { connect: () => NEVER, logger },
    limits,
    scheduler: undefined,
    slot: createListenerSlot(),
  };
  const dispatch = createDispatcher({
    session,
    config: { version: '0.0.0', fallbackName: 'fixture', limits },
    deps: ctx.deps,
    scheduler: undefined,
    listener: ctx.slot,
  });
  /** The client output: listener events and the responses of the dispatcher, merged as createBridge does. */
  const run = (requests$: Observable<RequestFrame>): Observable<Frame> =>
    merge(
      startListener(ctx),
      requests$.pipe(mergeMap((request) => dispatch({ kind: 'frame', frame: request }))),
    ).pipe(tap((frame) => order.push(letter(frame))));
  return { calls, order, lines, session, run };
}

const filterOf = (call: FakeRequest | undefined): unknown => call?.params['notifications'];

// docs/notifications.md#notifications-listener–docs/notifications.md#notifications-subscribe, docs/testing.md#testing-notify; docs/notifications.md#notifications-listener.
describe('listener and subscriptions', () => {
  it('gap replay after each ack lists tools, prompts, resources, then each subscribed URI', () => {
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const start = cold('      -k 30ms -', up);
      const changed = cold('         -k 10ms #', up); // the stream of the subscribe, lost at 17
      const reopened = cold('                   -k', up); // 0.5 s later
      const requests = hot('    -----s', client);
      const expected = '        ------S 511ms (TPLU)';
      const { run } = setup(ALL, [start, changed, reopened]);
      expectObservable(run(requests), '^ 1s !').toBe(expected, out);
      expectSubscriptions(start.subscriptions).toBe('^-----!');
      expectSubscriptions(reopened.subscriptions).toBe('517ms ^ 483ms !');
    });
  });

  it('the first ack of a connection lists no list the client has not fetched', () => {
    scheduler().run(({ cold, hot, expectObservable }) => {
      const start = cold('      -k--t', up);
      const requests = hot('    --l', client); // tools/list after the ack: no list change for it
      const { run } = setup(ALL, [start]);
      expectObservable(run(requests), '^ 1s !').toBe('----T', out);
    });
  });

  it('a list request before the first ack waits for it and gets no list change', () => {
    const virtual = scheduler();
    const listed: number[] = [];
    virtual.run(({ cold, hot, expectObservable }) => {
      const start = cold('      ---k 10ms t', up);
      const requests = hot('    -l', client);
      const { run } = setup(ALL, [start], DEFAULT_LIMITS, () => listed.push(virtual.now()));
      // Answered after the ack; the only list change is the real one at frame 14.
      expectObservable(run(requests), '^ 1s !').toBe('---R 10ms T', out);
    });
    expect(listed).toEqual([3]);
  });

  it('a list request waits for the first ack at most firstAckWaitMs, then it is answered and the ack lists it', () => {
    const virtual = scheduler();
    const listed: number[] = [];
    virtual.run(({ cold, hot, expectObservable }) => {
      const start = cold('      3s k', up);
      const requests = hot('    -l', client);
      const { run } = setup(ALL, [start], DEFAULT_LIMITS, () => listed.push(virtual.now()));
      expectObservable(run(requests), '^ 4s !').toBe('2001ms R 998ms T', out);
    });
    expect(listed).toEqual([2001]);
  });

  it('a client cancel of a list request that waits for the first ack ends it without a response or a forward', () => {
    const virtual = scheduler();
    const listed: number[] = [];
    virtual.run(({ cold, hot, expectObservable }) => {
      const start = cold('      50ms k', up);
      const harness = setup(ALL, [start], DEFAULT_LIMITS, () => listed.push(virtual.now()));
      const cancel = hot('      -----c').pipe(
        tap(() => harness.session.cancel(21)),
        ignoreElements(),
      );
      expectObservable(merge(harness.run(hot('-l', client)), cancel), '^ 1s !').toBe('-', out);
    });
    expect(listed).toEqual([]);
  });

  it('the first ack lists each list whose request the bridge forwarded before it, and a later gap lists all', () => {
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const start = cold('      --#', up); // lost before its ack: still no catch-up
      const first = cold('                  1600ms k 10ms #', up); // the first ack, at 2102
      const later = cold('                    -k', up); // after the gap, 1 s later
      // tools/list and resources/templates/list waited 2 s, then went; both still unanswered at
      // the first ack.
      const requests = hot('    lm', client);
      const { run } = setup(ALL, [start, first, later]);
      expectObservable(run(requests), '^ 4s !').toBe('2102ms (TL) 1008ms (TPL)', out);
      expectSubscriptions(first.subscriptions).toBe('502ms ^ 1610ms !');
      expectSubscriptions(later.subscriptions).toBe('3113ms ^ 887ms !');
    });
  });

  it('a second ack within one stream replays again', () => {
    scheduler().run(({ cold, hot, expectObservable }) => {
      const start = cold('      -k 10ms k', up);
      const { run } = setup(ALL, [start]);
      expectObservable(run(hot('-')), '^ 1s !').toBe('- 11ms (TPL)', out);
    });
  });

  it('an upstream notifications/cancelled ends the stream without reaching the client, and a new one follows', () => {
    let calls: FakeRequest[] = [];
    scheduler().run(({ cold, hot, expectObservable }) => {
      const first = cold('      -kc-t', up);
      const second = cold('     -k', up);
      const harness = setup(ALL, [first, second]);
      calls = harness.calls;
      expectObservable(harness.run(hot('-')), '^ 1s !').toBe('- 502ms (TPL)', out);
    });
    expect(calls[0]?.cancelReason).toBe('the upstream server ended the listen stream');
  });

  it('the subscribe response precedes the cancellation of the old stream and any update of the URI', () => {
    let order: string[] = [];
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const start = cold('      -k 30ms t', up);
      const changed = cold('              --ku', up);
      const requests = hot('    ----------s', client);
      const harness = setup(ALL, [start, changed]);
      order = harness.order;
      expectObservable(harness.run(requests), '^ 1s !').toBe('------------SU', out);
      expectSubscriptions(start.subscriptions).toBe('^ 11ms !');
    });
    expect(order.slice(0, 3)).toEqual(['S', 'cancel 0: the bridge replaced the listen stream', 'U']);
  });

  it('an update of a replaced stream is dropped', () => {
    let calls: FakeRequest[] = [];
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const first = cold('        -k-u--u---u', up); // A only; replaced at 6, its later updates dropped
      const second = cold('          --k--u-w', up); // A and B
      const requests = hot('      --s-z', client);
      const harness = setup(SUBSCRIBE_ONLY, [first, second]);
      calls = harness.calls;
      expectObservable(harness.run(requests), '^ 1s !').toBe('---S-UZ--U-W', out);
      expectSubscriptions(first.subscriptions).toBe('--^---!');
    });
    expect(filterOf(calls[1])).toEqual({ resourceSubscriptions: [A, B] });
  });

  it('events of a stream that is not yet acknowledged are dropped', () => {
    scheduler().run(({ cold, hot, expectObservable }) => {
      const changed = cold('      -u-k-u', up); // an update before the ack breaks the protocol
      const { run } = setup(SUBSCRIBE_ONLY, [changed]);
      expectObservable(run(hot('--s', client)), '^ 1s !').toBe('-----S-U', out);
    });
  });

  it('a failed replacement keeps the old stream and reports the upstream error', () => {
    let lines: string[] = [];
    let calls: FakeRequest[] = [];
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const start = cold('      -k 10ms t', up);
      const refused = cold('         --(x|)', up);
      const later = cold('                        --k', up);
      const requests = hot('    -----s 14ms z', client);
      const harness = setup(ALL, [start, refused, later]);
      ({ lines, calls } = harness);
      expectObservable(harness.run(requests), '^ 40ms !').toBe('-------X 4ms T 9ms Z', out);
      expectSubscriptions(start.subscriptions).toBe('^ 21ms !');
    });
    expect(lines).toEqual([
      'warn: the listen stream for a change of the subscriptions failed: error -32603: Subscription filter too large',
    ]);
    // The URI set stayed empty: the next change asks for B alone.
    expect(filterOf(calls[2])).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: [B],
    });
  });

  it('a replacement stream that is never acknowledged fails the change with timeout after the list time limit, and the old stream stays', () => {
    let lines: string[] = [];
    let order: string[] = [];
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const start = cold('      -k 30ms t', up);
      const silent = cold<ExchangeEvent>('-');
      const requests = hot('    -----s', client);
      const harness = setup(ALL, [start, silent], { ...DEFAULT_LIMITS, listTimeoutMs: 20 });
      ({ lines, order } = harness);
      expectObservable(harness.run(requests), '^ 40ms !').toBe('- 24ms O 6ms T', out);
      expectSubscriptions(start.subscriptions).toBe('^ 40ms !');
      expectSubscriptions(silent.subscriptions).toBe('5ms ^ 19ms !');
    });
    expect(lines).toEqual([
      'warn: the listen stream for a change of the subscriptions failed: resources/subscribe: no acknowledgment in 20 ms',
    ]);
    expect(order).toContain('cancel 1: the request timed out');
  });

  it('the last unsubscribe with no declared lists ends the stream and opens none', () => {
    let calls: FakeRequest[] = [];
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const stream = cold('         -k-u 10ms u', up);
      const requests = hot('      --s-----q', client);
      const harness = setup(SUBSCRIBE_ONLY, [stream]);
      calls = harness.calls;
      expectObservable(harness.run(requests), '^ 1s !').toBe('---S-U--Q', out);
      expectSubscriptions(stream.subscriptions).toBe('--^-----!');
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.cancelReason).toBe('the client unsubscribed from the last resource');
  });

  it('a subscribe-only upstream opens its first stream on the first subscribe, without a replay', () => {
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const stream = cold('            -k', up);
      const requests = hot('      -----s', client);
      const { run } = setup(SUBSCRIBE_ONLY, [stream]);
      expectObservable(run(requests), '^ 1s !').toBe('------S', out);
      expectSubscriptions(stream.subscriptions).toBe('-----^ 995ms !');
    });
  });

  it('two concurrent subscribes both answer {} and the second stream has both URIs', () => {
    let calls: FakeRequest[] = [];
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const first = cold('          --k', up);
      const second = cold('           --k', up);
      const requests = hot('      --sz', client);
      const harness = setup(SUBSCRIBE_ONLY, [first, second]);
      calls = harness.calls;
      expectObservable(harness.run(requests), '^ 1s !').toBe('----S-Z', out);
      expectSubscriptions(first.subscriptions).toBe('--^---!');
    });
    expect(calls.map(filterOf)).toEqual([{ resourceSubscriptions: [A] }, { resourceSubscriptions: [A, B] }]);
  });

  it('a change that waits when the listener stops gets no response', () => {
    let calls: FakeRequest[] = [];
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const start = cold('      -k 50ms -', up);
      const silent = cold('       -', up); // never acknowledged
      const harness = setup(ALL, [start, silent]);
      calls = harness.calls;
      // The tools/list waited for the first ack: no list change for it.
      expectObservable(harness.run(hot('l-s', client)), '^ 10ms !').toBe('-', out);
      expectSubscriptions(silent.subscriptions).toBe('--^ 8ms !');
    });
    expect(calls[1]?.cancelReason).toBe('the client closed the connection');
  });

  it('a client cancel of a waiting subscribe cancels its stream and gets no response', () => {
    let calls: FakeRequest[] = [];
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const start = cold('      -k 50ms -', up);
      const silent = cold('       -', up);
      const harness = setup(ALL, [start, silent]);
      calls = harness.calls;
      const cancel = hot('      -----c').pipe(
        tap(() => harness.session.cancel(11)),
        ignoreElements(),
      );
      expectObservable(merge(harness.run(hot('l-s', client)), cancel), '^ 1s !').toBe('-', out);
      expectSubscriptions(silent.subscriptions).toBe('--^--!');
    });
    expect(calls[1]?.cancelReason).toBe('the client canceled the request');
  });

  it('the end of input during a backoff wait opens no stream', () => {
    let calls: FakeRequest[] = [];
    scheduler().run(({ cold, hot, expectObservable }) => {
      const start = cold('      -k-#', up);
      const harness = setup(ALL, [start]);
      calls = harness.calls;
      expectObservable(harness.run(hot('l', client)), '^ 100ms !').toBe('-', out);
    });
    expect(calls).toHaveLength(1);
  });

  it('each listen stream carries the log level current at its start', () => {
    let calls: FakeRequest[] = [];
    scheduler().run(({ cold, hot, expectObservable }) => {
      const start = cold('      -k-#', up);
      const next = cold('       -k', up);
      const harness = setup(ALL, [start, next]);
      calls = harness.calls;
      harness.session.setLogLevel('info');
      const setLevel = hot('    100ms l').pipe(
        tap(() => harness.session.setLogLevel('debug')),
        ignoreElements(),
      );
      expectObservable(merge(harness.run(hot('-')), setLevel), '^ 1s !').toBe('- 503ms (TPL)', out);
    });
    const levels = calls.map((call) => (call.params['_meta'] as JsonObject)[META_LOG_LEVEL]);
    expect(levels).toEqual(['info', 'debug']);
  });
});
