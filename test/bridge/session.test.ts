/**
 * The session of one connection (docs/architecture.md#architecture-state): its state changes only
 * through its named operations, its events are read-only observables, and its functions work
 * unbound. The stops by id are in laneScheduler.test.ts.
 */
import { setFlagsFromString } from 'node:v8';
import { isObservable } from 'rxjs';
import type { Observable, Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createSession } from '../../src/bridge/session.js';
import type { Abort } from '../../src/bridge/session.js';
import { decided } from './initialized.js';

const subscriptions: Subscription[] = [];
afterEach(() => {
  for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
});

/** Every value `observable` emits, as it comes; `done` once it completed. */
function collect<T>(observable: Observable<T>) {
  const seen: { values: T[]; done: boolean } = { values: [], done: false };
  subscriptions.push(
    observable.subscribe({
      next: (value) => seen.values.push(value),
      complete: () => (seen.done = true),
    }),
  );
  return seen;
}

const LOST: Abort = { reason: 'the upstream server stopped' };

// V8's own test of an object's mode, allowed in this process from here on.
setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's %-syntax exists only in code compiled after the flag
const hasFastProperties = new Function('value', 'return %HasFastProperties(value)') as (
  value: object,
) => boolean;

describe('the session', () => {
  it('exposes no Subject: its events cannot be emitted from outside', () => {
    const session = createSession();
    for (const events of [
      session.answers$,
      session.cancels$,
      session.aborted$,
      session.ready$,
      session.initialized$,
    ]) {
      expect(isObservable(events)).toBe(true);
      expect('next' in events).toBe(false);
    }
  });

  it('becomes ready with what initialize decided, and replays the upstream', () => {
    const session = createSession();
    const ready = decided('2025-06-18');
    session.beginInitialize();
    expect(session.phase).toBe('initializing');
    session.becomeReady(ready);
    expect(session.phase).toBe('ready');
    expect(session.revision).toBe('2025-06-18');
    expect(session.client?.info).toEqual({ name: 'vscode', version: '1.99' });
    expect(session.declared).toEqual({ tools: true, prompts: false, resources: false, subscribe: false });
    expect(collect(session.ready$).values).toEqual([ready.upstream]);
  });

  it('a failed initialize returns to awaiting_initialize, but never out of closing', () => {
    const session = createSession();
    session.beginInitialize();
    session.initializeFailed();
    expect(session.phase).toBe('awaiting_initialize');
    session.beginInitialize();
    session.upstreamLost(LOST);
    session.initializeFailed();
    expect(session.phase).toBe('closing');
  });

  it('accepts notifications/initialized once, and only when ready', () => {
    const session = createSession();
    const initialized = collect<void>(session.initialized$);
    expect(session.markInitialized()).toBe(false);
    expect(session.initialized).toBe(false);
    session.becomeReady(decided('2025-06-18'));
    expect(session.markInitialized()).toBe(true);
    expect(session.markInitialized()).toBe(false);
    expect(session.initialized).toBe(true);
    expect(initialized.values).toHaveLength(1);
  });

  it('counts the tracked requests, also those that finish after an abort, and idle waits for the last', () => {
    const session = createSession();
    expect(collect(session.idle()).done).toBe(true);
    const stopped: string[] = [];
    const a = (abort: Abort): void => void stopped.push(`a: ${abort.reason}`);
    const b = (abort: Abort): void => void stopped.push(`b: ${abort.reason}`);
    session.track(1, a);
    session.track(2, b);
    expect(session.tasks).toBe(2);
    const idle = collect(session.idle());
    session.upstreamLost(LOST);
    expect(stopped).toEqual(['a: the upstream server stopped', 'b: the upstream server stopped']);
    expect(session.phase).toBe('closing');
    expect(session.tasks).toBe(2);
    session.untrack(1, a);
    expect(idle.done).toBe(false);
    session.untrack(2, b);
    expect(session.tasks).toBe(0);
    expect(idle.values).toHaveLength(1);
    expect(idle.done).toBe(true);
  });

  it('a cancel stops the running requests of that id before its observers hear of it', () => {
    const session = createSession();
    const order: string[] = [];
    subscriptions.push(session.cancels$.subscribe((id) => order.push(`cancels$ ${String(id)}`)));
    session.track(3, (abort) => order.push(`stop: ${abort.reason}`));
    session.cancel(3);
    expect(order).toEqual(['stop: the client canceled the request', 'cancels$ 3']);
  });

  it('replays the last abort to a late observer', () => {
    const session = createSession();
    session.abortAll({ reason: 'the client closed the connection' });
    expect(collect(session.aborted$).values).toEqual([{ reason: 'the client closed the connection' }]);
  });

  it('works with its functions called unbound', () => {
    const { track, untrack, cancel, answer, nextBridgeId, setLogLevel, listFetched, markInitialized } =
      createSession();
    const stopped: string[] = [];
    const stop = (abort: Abort): void => void stopped.push(abort.reason);
    track(5, stop);
    cancel(5);
    untrack(5, stop);
    answer({ id: 'b-1', badLine: true });
    setLogLevel('debug');
    listFetched(1);
    expect(markInitialized()).toBe(false);
    expect([nextBridgeId(), nextBridgeId()]).toEqual(['b-1', 'b-2']);
    expect(stopped).toEqual(['the client canceled the request']);
  });

  it('is an object in fast mode, with its fields as data, before and after it became ready', () => {
    // A getter would make it a dictionary on Node 20: every read of a field a lookup
    // (bench/README.md "The view of the upstream as options").
    const session = createSession();
    expect(hasFastProperties(session)).toBe(true);
    session.beginInitialize();
    session.becomeReady(decided('2025-11-25'));
    session.setLogLevel('info');
    expect(Object.getOwnPropertyDescriptor(session, 'phase')).toMatchObject({
      value: 'ready',
      writable: true,
    });
    expect(hasFastProperties(session)).toBe(true);
  });

  it('keeps the log level and the fetched lists it was told of', () => {
    const session = createSession();
    session.setLogLevel('warning');
    session.listFetched(1);
    session.listFetched(4);
    expect(session.logLevel).toBe('warning');
    expect(session.listsFetched).toBe(5);
  });

  it('dispose closes the ready upstream', () => {
    const session = createSession();
    const ready = decided('2025-06-18');
    let closed = 0;
    session.becomeReady({ ...ready, upstream: { ...ready.upstream, close: () => void (closed += 1) } });
    session.dispose();
    expect(closed).toBe(1);
  });
});
