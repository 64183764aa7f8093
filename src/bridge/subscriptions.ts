/**
 * The listen streams of one connection and the client's resource subscriptions
 * (docs/notifications.md#notifications-listener–docs/notifications.md#notifications-subscribe), the client-facing part: the queue of `resources/subscribe`
 * / `resources/unsubscribe` changes, their cancellation, and the start and stop of the listener.
 * The state of the subscribed URIs and the rules of each chain's events are in
 * subscriptionState.ts; the listen stream of one chain and its reopening in
 * subscriptionStream.ts. Everything here lives inside one subscription of the listener.
 */
import { CLIENT_CANCEL_REASON } from '../protocol/cancelReasons.js';
import {
  EMPTY,
  Observable,
  ReplaySubject,
  Subject,
  concatMap,
  defer,
  finalize,
  ignoreElements,
  merge,
  mergeMap,
  take,
  tap,
} from 'rxjs';
import { listenFilter } from '../codec/listen.js';
import type { DeclaredLists, ListSet } from '../codec/listen.js';
import type { Frame, RequestFrame, RequestId } from '../protocol/jsonrpc.js';
import { result } from '../protocol/jsonrpc.js';
import { createSubscriptionState } from './subscriptionState.js';
import type { Chain, Change } from './subscriptionState.js';
import { runChain } from './subscriptionStream.js';
import type { ChainStreamOptions } from './subscriptionStream.js';

export interface SubscriptionsOptions extends ChainStreamOptions {
  readonly declared: DeclaredLists;
  /** The lists the client fetched so far, for the catch-up of the first acknowledgment (README.md). */
  readonly fetchedLists: () => ListSet;
  /** Called once, at the first acknowledgment of the connection, after its catch-up was made. */
  readonly firstAck?: () => void;
  readonly log: (level: 'info' | 'warn', text: string) => void;
  /** Client `notifications/cancelled`, by request id: a waiting change is dropped without a response. */
  readonly cancels$: Observable<RequestId>;
}

export interface Subscriptions {
  /** The events for the client. Unsubscribing cancels every stream; waiting changes get no response. */
  readonly output$: Observable<Frame>;
  /** Queues one change; emits its response (or none when the listener stops first), then completes. */
  submit(request: RequestFrame, uri: string, subscribe: boolean): Observable<Frame>;
}

/** The listener state machine of one connection. Call it inside `defer`: it holds state. */
export function createSubscriptions(options: SubscriptionsOptions): Subscriptions {
  const { declared } = options;
  const state = createSubscriptionState(declared, options.log, options.fetchedLists, options.firstAck);
  const { pending } = state;
  const opens = new Subject<Chain>();
  const changes = new Subject<Change>();

  const processChange = (change: Change): Observable<never> =>
    defer(() => {
      if (!pending.has(change)) return EMPTY;
      const { request, uri, subscribe } = change;
      const known = state.uris.includes(uri);
      // Already subscribed, or not subscribed: answered at once, no new stream (docs/notifications.md#notifications-subscribe).
      if (known === subscribe) {
        state.settle(change, result(request.id, {}));
        return EMPTY;
      }
      const next = subscribe ? [...state.uris, uri] : state.uris.filter((item) => item !== uri);
      if (listenFilter(declared, next) === undefined) {
        // The last unsubscribe without declared lists: the stream ends, none opens.
        const old = state.active;
        state.active = undefined;
        state.uris = next;
        state.gap = false;
        state.settle(change, result(request.id, {}), () =>
          state.kill(old, 'the client unsubscribed from the last resource'),
        );
        return EMPTY;
      }
      const chain = state.newChain(next, change);
      change.chain = chain;
      opens.next(chain);
      return change.settled$.pipe(take(1), ignoreElements());
    });

  /** Drops a waiting change without a response; its chain is cancelled unless it committed. */
  const drop = (change: Change): void => {
    if (!pending.has(change)) return;
    if (change.chain !== undefined && change.chain.acks === 0) state.kill(change.chain, CLIENT_CANCEL_REASON);
    state.settle(change, undefined);
  };

  const start = (): Observable<never> =>
    defer(() => {
      if (listenFilter(declared, []) !== undefined) {
        state.active = state.newChain([], undefined);
        // The first acknowledgment replays too, for the lists the client fetched before it:
        // it covers list requests racing the start (README.md "List changes and subscriptions").
        state.gap = true;
        opens.next(state.active);
      }
      return EMPTY;
    });

  const output$ = merge(
    opens.pipe(mergeMap((chain) => runChain(state, options, chain))),
    changes.pipe(concatMap(processChange)),
    options.cancels$.pipe(
      tap((id) => [...pending].filter((change) => change.request.id === id).forEach(drop)),
      ignoreElements(),
    ),
    start(),
  ).pipe(
    finalize(() => {
      // docs/notifications.md#notifications-subscribe: a change that waits when the listener stops gets no response.
      state.stopped = true;
      for (const change of [...pending]) state.settle(change, undefined);
    }),
  );

  const submit = (request: RequestFrame, uri: string, subscribe: boolean): Observable<Frame> =>
    new Observable<Frame>((sink) => {
      if (state.stopped) {
        sink.complete();
        return undefined;
      }
      const change: Change = { request, uri, subscribe, sink, settled$: new ReplaySubject<void>(1) };
      pending.add(change);
      changes.next(change);
      return () => drop(change);
    });

  return { output$, submit };
}
