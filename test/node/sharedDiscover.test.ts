import { EMPTY, NEVER, Subject, defer, of } from 'rxjs';
import type { Observable, Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { knownDiscover } from '../../src/node/sharedDiscover.js';
import type { ExchangeEvent, UpstreamConnection } from '../../src/ports/upstream.js';

const DISCOVER = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: { listChanged: true } },
  ttlMs: 0,
  cacheScope: 'private',
};
const ACK = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: {} } as const;

/** A fake upstream that counts its discovers; each listen stream is a Subject the test drives. */
function fakeUpstream() {
  const exit$ = new Subject<{ code: number | null; signal: string | null }>();
  const streams: Subject<ExchangeEvent>[] = [];
  let discovers = 0;
  const connection: UpstreamConnection = {
    request: (method): Observable<ExchangeEvent> => {
      if (method === 'server/discover')
        return defer(() => {
          discovers += 1;
          const event: ExchangeEvent = {
            type: 'response',
            frame: { jsonrpc: '2.0', id: discovers, result: DISCOVER },
          };
          return of(event);
        });
      if (method !== 'subscriptions/listen') return EMPTY;
      const stream = new Subject<ExchangeEvent>();
      streams.push(stream);
      return stream;
    },
    notifications$: NEVER,
    exit$,
    remote: false,
    close: () => undefined,
  };
  return { connection, exit$, streams, discovers: () => discovers };
}

/** The discover of one session's view: its response frame. */
function discover(view: UpstreamConnection): unknown {
  let frame: unknown;
  view.request('server/discover', {}).subscribe((event) => (frame = event.frame));
  return frame;
}

const note = (method: string): ExchangeEvent => ({ type: 'notification', frame: { jsonrpc: '2.0', method } });

describe('knownDiscover', () => {
  it('answers from the known result once a listen stream was acknowledged after it', () => {
    const upstream = fakeUpstream();
    let known = 0;
    const view = knownDiscover().wrap(upstream.connection, () => (known += 1));
    discover(view);
    discover(view);
    expect(upstream.discovers()).toBe(2);
    view.request('subscriptions/listen', {}).subscribe();
    upstream.streams[0]!.next({ type: 'notification', frame: ACK });
    expect(discover(view)).toEqual({ jsonrpc: '2.0', id: 0, result: DISCOVER });
    expect(upstream.discovers()).toBe(2);
    expect(known).toBe(1);
  });

  it('keeps it across a resource update, drops it on a list change, and a new answer is fresh at once while a stream is open', () => {
    const upstream = fakeUpstream();
    const view = knownDiscover().wrap(upstream.connection, () => undefined);
    discover(view);
    view.request('subscriptions/listen', {}).subscribe();
    upstream.streams[0]!.next({ type: 'notification', frame: ACK });
    upstream.streams[0]!.next(note('notifications/resources/updated'));
    discover(view);
    expect(upstream.discovers()).toBe(1);
    upstream.streams[0]!.next(note('notifications/prompts/list_changed'));
    discover(view);
    expect(upstream.discovers()).toBe(2);
    discover(view);
    expect(upstream.discovers()).toBe(2);
  });

  it('drops it when the upstream exits or the last acknowledged stream ends', () => {
    const upstream = fakeUpstream();
    const known = knownDiscover();
    const a = known.wrap(upstream.connection, () => undefined);
    const b = known.wrap(upstream.connection, () => undefined);
    const listen = (view: UpstreamConnection, index: number): Subscription => {
      const subscription = view.request('subscriptions/listen', {}).subscribe();
      upstream.streams[index]!.next({ type: 'notification', frame: ACK });
      return subscription;
    };
    discover(a);
    const first = listen(a, 0);
    const second = listen(b, 1);
    upstream.exit$.next({ code: 0, signal: null });
    discover(b);
    expect(upstream.discovers()).toBe(2);
    // One stream of the two ends: the other still tells of changes.
    first.unsubscribe();
    discover(b);
    expect(upstream.discovers()).toBe(2);
    second.unsubscribe();
    discover(b);
    expect(upstream.discovers()).toBe(3);
  });

  it('keeps the result of a newer upstream of the key when an older one exits late', () => {
    const old = fakeUpstream();
    const newer = fakeUpstream();
    const known = knownDiscover();
    const before = known.wrap(old.connection, () => undefined);
    discover(before);
    // The old upstream was stopped (a failed initialize); the next one answers and is heard.
    const view = known.wrap(newer.connection, () => undefined);
    discover(view);
    view.request('subscriptions/listen', {}).subscribe();
    newer.streams[0]!.next({ type: 'notification', frame: ACK });
    old.exit$.next({ code: null, signal: 'SIGTERM' });
    discover(view);
    expect(newer.discovers()).toBe(1);
    newer.exit$.next({ code: 0, signal: null });
    discover(view);
    expect(newer.discovers()).toBe(2);
  });
});
