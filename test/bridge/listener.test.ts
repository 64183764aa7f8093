import { NEVER } from 'rxjs';
import type { Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import { createListenerSlot, handleSubscription, startListener } from '../../src/bridge/listener.js';
import type { Logger } from '../../src/ports/logger.js';
import { createSession } from '../../src/bridge/session.js';
import type { Session } from '../../src/bridge/session.js';
import {
  LISTEN_ACKNOWLEDGED,
  PROMPTS_LIST_CHANGED,
  RESOURCE_UPDATED,
  TOOLS_LIST_CHANGED,
} from '../../src/codec/listen.js';
import type { DeclaredLists } from '../../src/codec/listen.js';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SUBSCRIPTION_ID,
} from '../../src/protocol/metaKey.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';
import type {
  Frame,
  JsonObject,
  NotificationFrame,
  RequestFrame,
  ResponseFrame,
} from '../../src/protocol/jsonrpc.js';
import { createFakeUpstream, upstreamError } from '../../src/testing/fakeUpstream.js';
import type { FakeRequest } from '../../src/testing/fakeUpstream.js';
import { errWith, note, req, res } from '../../src/testing/frames.js';
import { wireErrorFrame } from '../helpers/wireErrors.js';

const NONE: DeclaredLists = { tools: false, prompts: false, resources: false, subscribe: false };
const ALL: DeclaredLists = { tools: true, prompts: true, resources: true, subscribe: true };
const A = 'file:///a.json';
const B = 'file:///b.json';

const tagged = (method: string, params: JsonObject = {}): NotificationFrame =>
  note(method, { ...params, _meta: { [META_SUBSCRIPTION_ID]: 1 } });

/** A ready session with an upstream whose listen exchanges are driven by hand. */
function setup(declared: DeclaredLists, logLevel?: string) {
  const lines: string[] = [];
  // Every listen exchange stays open; the tests drive each one by hand.
  const fake = createFakeUpstream({ methods: { 'subscriptions/listen': () => NEVER } });
  const calls = fake.requests;
  const upstream = fake.connection;
  const session: Session = createSession();
  if (logLevel !== undefined) session.setLogLevel(logLevel);
  session.becomeReady({
    client: {
      info: { name: 'vscode', version: '1.99' },
      capabilities: {},
      upstreamCapabilities: { elicitation: {} },
    },
    revision: '2025-11-25',
    upstream,
    declared,
  });
  const logger: Logger = {
    log: (_scope, level, text) => lines.push(`${level}: ${text}`),
    enabled: () => false,
  };
  const ctx = {
    session,
    deps: { connect: () => NEVER, logger },
    limits: DEFAULT_LIMITS,
    scheduler: undefined,
    slot: createListenerSlot(),
  };
  const output: Frame[] = [];
  const subscription = startListener(ctx).subscribe((frame) => output.push(frame));
  subscriptions.push(subscription);
  const notify = (call: FakeRequest | undefined, frame: NotificationFrame): void => call?.notify(frame);
  const ack = (call: FakeRequest | undefined): void =>
    notify(call, tagged(LISTEN_ACKNOWLEDGED, { notifications: {} }));
  const answer = (call: FakeRequest | undefined, frame: ResponseFrame): void =>
    call?.reply(
      'error' in frame
        ? upstreamError(frame.error.code, frame.error.message, frame.error.data)
        : frame.result,
    );
  /** Sends a client request and collects its frames. */
  const send = (request: RequestFrame): Frame[] => {
    const frames: Frame[] = [];
    subscriptions.push(
      handleSubscription(ctx.slot, session, request).subscribe((frame) => frames.push(frame)),
    );
    return frames;
  };
  const initialized = (): void => {
    session.markInitialized();
  };
  return {
    session,
    slot: ctx.slot,
    calls,
    lines,
    output,
    subscription,
    notify,
    ack,
    answer,
    send,
    initialized,
  };
}

const subscriptions: Subscription[] = [];
afterEach(() => {
  for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
});

const subscribe = (id: number, uri: unknown): RequestFrame =>
  req(id, 'resources/subscribe', uri === undefined ? {} : ({ uri } as JsonObject));
const unsubscribe = (id: number, uri: string): RequestFrame => req(id, 'resources/unsubscribe', { uri });

// docs/notifications.md#notifications-listener–docs/notifications.md#notifications-subscribe, docs/lifecycle.md#lifecycle-client-notifications, docs/requests.md#requests-meta, docs/README.md#easy-to-miss items 5, 6, 14, 15.
describe('listener', () => {
  it('starts only after notifications/initialized, and answers -32601 before', () => {
    const h = setup(ALL);
    expect(h.calls).toHaveLength(0);
    expect(h.send(subscribe(1, A))).toEqual([wireErrorFrame(1, 'method_not_found')]);
    h.initialized();
    expect(h.calls.map((call) => call.method)).toEqual(['subscriptions/listen']);
  });

  it('runs no listener without a listChanged flag or resources.subscribe', () => {
    const h = setup(NONE);
    h.initialized();
    expect(h.calls).toHaveLength(0);
    expect(h.send(subscribe(1, A))).toEqual([wireErrorFrame(1, 'method_not_found')]);
  });

  it('answers -32601 to resources/subscribe when the upstream did not declare subscribe', () => {
    const h = setup({ ...NONE, tools: true });
    h.initialized();
    expect(h.send(subscribe(1, A))).toEqual([wireErrorFrame(1, 'method_not_found')]);
    expect(h.send(unsubscribe(2, A))).toEqual([wireErrorFrame(2, 'method_not_found')]);
  });

  it('answers -32602 to params without a string uri', () => {
    const h = setup(ALL);
    h.initialized();
    expect(h.send(subscribe(1, undefined))).toEqual([wireErrorFrame(1, 'invalid_params')]);
    expect(h.send(subscribe(2, 5))).toEqual([wireErrorFrame(2, 'invalid_params')]);
    expect(h.calls).toHaveLength(1);
  });

  it('asks for the declared lists only, with the protocol keys and the log level in _meta', () => {
    const h = setup({ ...NONE, tools: true }, 'warning');
    h.initialized();
    expect(h.calls[0]?.params).toEqual({
      notifications: { toolsListChanged: true },
      _meta: {
        [META_PROTOCOL_VERSION]: '2026-07-28',
        [META_CLIENT_INFO]: { name: 'vscode', version: '1.99' },
        [META_CLIENT_CAPABILITIES]: { elicitation: {} },
        [META_LOG_LEVEL]: 'warning',
      },
    });
  });

  it('forwards only the declared kinds in legacy shape, never the ack or an upstream cancel', () => {
    const h = setup({ ...NONE, tools: true });
    h.initialized();
    const stream = h.calls[0];
    h.ack(stream);
    h.notify(stream, tagged(PROMPTS_LIST_CHANGED));
    h.notify(stream, note(TOOLS_LIST_CHANGED, { _meta: { [META_SUBSCRIPTION_ID]: 1, 'vscode.kept': 1 } }));
    h.notify(stream, tagged(TOOLS_LIST_CHANGED));
    h.notify(stream, note('notifications/cancelled', { requestId: 1 }));
    // No catch-up at the acknowledgment: the client has not fetched the tools yet.
    expect(h.output).toEqual([
      note(TOOLS_LIST_CHANGED, { _meta: { 'vscode.kept': 1 } }),
      note(TOOLS_LIST_CHANGED),
    ]);
    expect(stream?.cancelReason).toBe('the upstream server ended the listen stream');
  });

  it('answers an already subscribed URI and an unknown URI at once, without a new stream', () => {
    const h = setup(ALL);
    h.initialized();
    const first = h.send(subscribe(1, A));
    h.ack(h.calls[1]);
    expect(first).toEqual([res(1, {})]);
    expect(h.send(subscribe(2, A))).toEqual([res(2, {})]);
    expect(h.send(unsubscribe(3, B))).toEqual([res(3, {})]);
    expect(h.calls).toHaveLength(2);
  });

  it('a replacement that fails with a transport error reports the bridge error and keeps the old stream', () => {
    const h = setup(ALL);
    h.initialized();
    const frames = h.send(subscribe(7, A));
    h.calls[1]?.reply(new BridgeError('transport_failed', { httpStatus: 503 }));
    expect(frames).toEqual([wireErrorFrame(7, 'transport_failed', 'HTTP status 503')]);
    expect(h.calls[0]?.cancelReason).toBeUndefined();
    expect(h.lines).toEqual([
      'warn: the listen stream for a change of the subscriptions failed: transport_failed (HTTP status 503)',
    ]);
  });

  it('a replacement that ends before its ack fails with invalid_response', () => {
    const h = setup(ALL);
    h.initialized();
    const frames = h.send(subscribe(7, A));
    h.answer(h.calls[1], res(2, { resultType: 'complete' }));
    expect(frames).toEqual([
      wireErrorFrame(7, 'invalid_response', 'subscriptions/listen ended before its acknowledgment'),
    ]);
  });

  it('passes an upstream -32042 refusal as -32603 without data', () => {
    const h = setup(ALL);
    h.initialized();
    const frames = h.send(subscribe(7, A));
    h.answer(h.calls[1], errWith(2, -32042, 'URL elicitation required', { url: 'x' }));
    expect(frames).toEqual([errWith(7, -32603, 'URL elicitation required')]);
  });

  it('after a refused stream only a subscription change opens a stream, and its ack replays the gap', () => {
    const h = setup({ ...NONE, tools: true, subscribe: true });
    h.initialized();
    h.ack(h.calls[0]);
    h.answer(h.calls[0], errWith(1, -32603, 'Too many listeners'));
    expect(h.lines).toEqual([
      'warn: the upstream server refused the listen stream (error -32603: Too many listeners); list changes stop.',
    ]);
    expect(h.calls).toHaveLength(1);
    const frames = h.send(subscribe(2, A));
    h.ack(h.calls[1]);
    expect(frames).toEqual([res(2, {})]);
    // The first ack lists nothing (no list fetched); the one after the refusal lists all.
    expect(h.output).toEqual([note(TOOLS_LIST_CHANGED), note(RESOURCE_UPDATED, { uri: A })]);
  });

  it('the last unsubscribe with declared lists opens a stream without URIs', () => {
    const h = setup({ ...NONE, tools: true, subscribe: true });
    h.initialized();
    h.ack(h.calls[0]);
    h.send(subscribe(1, A));
    h.ack(h.calls[1]);
    const frames = h.send(unsubscribe(2, A));
    expect(frames).toEqual([]);
    expect(h.calls[2]?.params['notifications']).toEqual({ toolsListChanged: true });
    h.ack(h.calls[2]);
    expect(frames).toEqual([res(2, {})]);
    expect(h.calls.map((call) => call.cancelReason)).toEqual([
      'the bridge replaced the listen stream',
      'the bridge replaced the listen stream',
      undefined,
    ]);
  });

  it('a subscribe after the listener stopped gets -32601: the connection keeps no stopped listener', () => {
    const h = setup(ALL);
    h.initialized();
    h.ack(h.calls[0]);
    h.subscription.unsubscribe();
    expect(h.slot.current).toBeUndefined();
    expect(h.send(subscribe(3, A))).toEqual([
      { jsonrpc: '2.0', id: 3, error: expect.objectContaining({ code: -32601 }) },
    ]);
  });

  it('a stopped listener cancels its streams and refuses new changes', () => {
    const h = setup(ALL);
    h.initialized();
    h.ack(h.calls[0]);
    const waiting = h.send(subscribe(1, A));
    let completed = false;
    subscriptions.push(
      handleSubscription(h.slot, h.session, subscribe(2, B)).subscribe({
        complete: () => (completed = true),
      }),
    );
    h.subscription.unsubscribe();
    expect(completed).toBe(true);
    expect(waiting).toEqual([]);
    expect(h.calls.map((call) => call.cancelReason)).toEqual([
      'the client closed the connection',
      'the client closed the connection',
    ]);
    expect(h.send(subscribe(3, A))).toEqual([wireErrorFrame(3, 'method_not_found')]);
  });
});
