/**
 * The listen streams of one connection and the client's resource subscriptions
 * (reference-behaviors.md §5.1–§5.6): which stream is active, the subscribed URIs, the gap
 * replay, and the queue of `resources/subscribe` / `resources/unsubscribe` changes.
 *
 * A stream is kept open by a chain: one listen request with a fixed filter, reopened by
 * reopenListen after each loss. Exactly one chain is active; only its events reach the client
 * (generation gating). A change opens a new chain with the full URI set ("make before
 * break"); its first acknowledgment commits the change: the response `{}` is written, then the
 * old chain is cancelled. Everything here lives inside one subscription of the listener.
 */
import {
  EMPTY,
  Observable,
  ReplaySubject,
  Subject,
  catchError,
  concatMap,
  defer,
  finalize,
  ignoreElements,
  merge,
  mergeMap,
  take,
  takeUntil,
  tap,
  timer,
  asyncScheduler,
} from 'rxjs';
import type { SchedulerLike, Subscriber } from 'rxjs';
import { reopenListen } from '../../operators/reopenListen.js';
import type { ListenEvent, ReopenListenConfig } from '../../operators/reopenListen.js';
import { LISTEN_ACKNOWLEDGED, gapReplay, listenFilter, toLegacyListenEvent } from '../codec/listen.js';
import type { DeclaredLists } from '../codec/listen.js';
import { decideListenEnd } from '../codec/listenEnd.js';
import { toClientError } from '../codec/upstreamError.js';
import { isBridgeError } from '../errors.js';
import { bridgeError, formatDuration } from '../protocol/errors.js';
import type { ErrorObject, Frame, RequestFrame, RequestId } from '../protocol/jsonrpc.js';
import { errorResponse, isErrorResponse, result } from '../protocol/jsonrpc.js';
import { toErrorObject } from './session.js';

export interface SubscriptionsOptions {
  readonly declared: DeclaredLists;
  /** One listen request with the filter of `uris` (never empty); built at subscription time. */
  readonly openStream: (uris: readonly string[], cancelReason: () => string) => Observable<ListenEvent>;
  /** Backoff, clock, sign-in signal and log lines of the reconnect. */
  readonly reopen: Partial<ReopenListenConfig>;
  readonly log: (level: 'info' | 'warn', text: string) => void;
  /** Client `notifications/cancelled`, by request id: a waiting change is dropped without a response. */
  readonly cancels$: Observable<RequestId>;
  /**
   * How long the stream of a change may wait for its first acknowledgment before the change fails
   * with `timeout` (the list time limit, reference-behaviors.md §3.5; issue 10 item 4).
   */
  readonly ackTimeoutMs: number;
  readonly scheduler?: SchedulerLike | undefined;
}

export interface Subscriptions {
  /** The events for the client. Unsubscribing cancels every stream; waiting changes get no response. */
  readonly output$: Observable<Frame>;
  /** Queues one change; emits its response (or none when the listener stops first), then completes. */
  submit(request: RequestFrame, uri: string, subscribe: boolean): Observable<Frame>;
}

interface Change {
  readonly request: RequestFrame;
  readonly uri: string;
  readonly subscribe: boolean;
  readonly sink: Subscriber<Frame>;
  /** Fires once the change is answered or dropped: the next change may start. */
  readonly settled$: ReplaySubject<void>;
  chain?: Chain;
}

interface Chain {
  readonly uris: readonly string[];
  /** The change this chain carries out; undefined for the chain the listener starts with. */
  readonly change: Change | undefined;
  acks: number;
  streamAcks: number;
  cancelReason: string;
  readonly kill$: Subject<void>;
}

const REPLACED = 'the bridge replaced the listen stream';
const CLOSED = 'the client closed the connection';

/** A failure for the log: its code and details, never frame contents. */
const describe = (error: unknown): string => {
  if (!isBridgeError(error)) return 'internal failure';
  const status = error.httpStatus === undefined ? undefined : `HTTP status ${error.httpStatus}`;
  const details = [error.detail, status].filter((part) => part !== undefined);
  return details.length === 0 ? error.code : `${error.code} (${details.join(', ')})`;
};

/** The listener state machine of one connection. Call it inside `defer`: it holds state. */
export function createSubscriptions(options: SubscriptionsOptions): Subscriptions {
  const { declared, log } = options;
  let uris: readonly string[] = [];
  let active: Chain | undefined;
  /** The watch broke (or never started): the next acknowledgment of the active chain replays. */
  let gap = false;
  let stopped = false;
  const pending = new Set<Change>();
  const opens = new Subject<Chain>();
  const changes = new Subject<Change>();

  const newChain = (chainUris: readonly string[], change: Change | undefined): Chain => ({
    uris: chainUris,
    change,
    acks: 0,
    streamAcks: 0,
    cancelReason: CLOSED,
    kill$: new Subject<void>(),
  });
  const kill = (chain: Chain | undefined, reason: string): void => {
    if (chain === undefined) return;
    chain.cancelReason = reason;
    chain.kill$.next();
  };
  /** Answers (or drops) a change; `then` runs before the next change may start. */
  const settle = (change: Change, response: Frame | undefined, then?: () => void): void => {
    if (!pending.delete(change)) return;
    if (response !== undefined) change.sink.next(response);
    change.sink.complete();
    then?.();
    change.settled$.next();
  };
  const replay = (): Frame[] => {
    if (!gap) return [];
    gap = false;
    return gapReplay(declared, uris);
  };

  /** A chain of a change ended before its first acknowledgment (§5.6): the old stream stays. */
  const fail = (chain: Chain, error: ErrorObject, why: string): void => {
    const change = chain.change;
    if (change === undefined || chain.acks > 0 || !pending.has(change)) return;
    log('warn', `the listen stream for a change of the subscriptions failed: ${why}`);
    settle(change, errorResponse(change.request.id, error));
  };

  /** The first acknowledgment of a change's chain: respond, then cancel the old chain (§5.6). */
  const commit = (chain: Chain, change: Change): Frame[] => {
    const old = active;
    active = chain;
    uris = chain.uris;
    settle(change, result(change.request.id, {}), () => kill(old, REPLACED));
    return replay();
  };

  const onAck = (chain: Chain): Frame[] => {
    chain.acks += 1;
    chain.streamAcks += 1;
    if (chain.change !== undefined && chain.acks === 1) return commit(chain, chain.change);
    // An old stream that acknowledges late never replaces a newer one.
    if (chain !== active) return [];
    // A second acknowledgment within one stream is a hidden re-attempt: replay too (§5.4).
    if (chain.streamAcks > 1) gap = true;
    return replay();
  };

  const handle = (chain: Chain, event: ListenEvent): Frame[] => {
    if (event.type === 'response') {
      const frame = event.frame;
      if (isErrorResponse(frame)) {
        fail(chain, toClientError(frame.error), `error ${frame.error.code}: ${frame.error.message}`);
      } else {
        const why = 'subscriptions/listen ended before its acknowledgment';
        fail(chain, bridgeError('invalid_response', why), why);
      }
      return [];
    }
    if (event.frame.method === LISTEN_ACKNOWLEDGED) return onAck(chain);
    if (chain !== active) return [];
    // Issue 10 item 2: a failure on one event drops that event, never the stream.
    try {
      const legacy = toLegacyListenEvent(event.frame, declared);
      return legacy === undefined ? [] : [legacy];
    } catch (error: unknown) {
      log(
        'warn',
        `dropped the listen event ${event.frame.method}: the bridge failed on it (${describe(error)})`,
      );
      return [];
    }
  };

  /**
   * The stream of a change that is not acknowledged within the limit: the change fails with
   * `timeout` and the stream is cancelled; the old stream stays in place (§5.6).
   */
  const ackDeadline = (chain: Chain): Observable<never> => {
    const change = chain.change;
    if (change === undefined) return EMPTY;
    return timer(options.ackTimeoutMs, options.scheduler ?? asyncScheduler).pipe(
      tap(() => {
        if (chain.acks > 0 || !pending.has(change)) return;
        const detail = `${change.request.method}: no acknowledgment in ${formatDuration(options.ackTimeoutMs)}`;
        fail(chain, bridgeError('timeout', detail), detail);
        kill(chain, 'the request timed out');
      }),
      ignoreElements(),
    );
  };

  const runChain = (chain: Chain): Observable<Frame> => {
    const stream$ = defer(() => {
      chain.streamAcks = 0;
      chain.cancelReason = CLOSED;
      return options.openStream(chain.uris, () => chain.cancelReason);
    }).pipe(
      tap((event) => {
        if (event.type === 'notification' && event.frame.method === 'notifications/cancelled') {
          chain.cancelReason = 'the upstream server ended the listen stream';
        }
      }),
      // A lost stream of the active chain is a gap: its next acknowledgment replays (§5.4).
      finalize(() => {
        if (chain === active) gap = true;
      }),
    );
    return stream$.pipe(
      reopenListen({
        ...options.reopen,
        failBeforeFirstAck: chain.change !== undefined,
        // The bridge's own acknowledgment and end rules (reference-behaviors.md §5.5, §6.8).
        isAcknowledgment: (event) =>
          event.type === 'notification' && event.frame.method === LISTEN_ACKNOWLEDGED,
        classifyEnd: decideListenEnd,
      }),
      mergeMap((event) => handle(chain, event)),
      tap({
        complete: () => {
          const why = 'subscriptions/listen ended before its acknowledgment';
          fail(chain, bridgeError('invalid_response', why), why);
        },
      }),
      catchError((error: unknown) => {
        fail(chain, toErrorObject(error), describe(error));
        return EMPTY;
      }),
      // Outside reopenListen: a reopen must not restart the clock of the change.
      (events$) => merge(events$, ackDeadline(chain)),
      takeUntil(chain.kill$),
    );
  };

  const processChange = (change: Change): Observable<never> =>
    defer(() => {
      if (!pending.has(change)) return EMPTY;
      const { request, uri, subscribe } = change;
      const known = uris.includes(uri);
      // Already subscribed, or not subscribed: answered at once, no new stream (§5.6).
      if (known === subscribe) {
        settle(change, result(request.id, {}));
        return EMPTY;
      }
      const next = subscribe ? [...uris, uri] : uris.filter((item) => item !== uri);
      if (listenFilter(declared, next) === undefined) {
        // The last unsubscribe without declared lists: the stream ends, none opens.
        const old = active;
        active = undefined;
        uris = next;
        gap = false;
        settle(change, result(request.id, {}), () =>
          kill(old, 'the client unsubscribed from the last resource'),
        );
        return EMPTY;
      }
      const chain = newChain(next, change);
      change.chain = chain;
      opens.next(chain);
      return change.settled$.pipe(take(1), ignoreElements());
    });

  /** Drops a waiting change without a response; its chain is cancelled unless it committed. */
  const drop = (change: Change): void => {
    if (!pending.has(change)) return;
    if (change.chain !== undefined && change.chain.acks === 0)
      kill(change.chain, 'the client canceled the request');
    settle(change, undefined);
  };

  const start = (): Observable<never> =>
    defer(() => {
      if (listenFilter(declared, []) !== undefined) {
        active = newChain([], undefined);
        // The first acknowledgment replays too: it covers list requests racing the start (§5.4).
        gap = true;
        opens.next(active);
      }
      return EMPTY;
    });

  const output$ = merge(
    opens.pipe(mergeMap(runChain)),
    changes.pipe(concatMap(processChange)),
    options.cancels$.pipe(
      tap((id) => [...pending].filter((change) => change.request.id === id).forEach(drop)),
      ignoreElements(),
    ),
    start(),
  ).pipe(
    finalize(() => {
      // §5.6: a change that waits when the listener stops gets no response.
      stopped = true;
      for (const change of [...pending]) settle(change, undefined);
    }),
  );

  const submit = (request: RequestFrame, uri: string, subscribe: boolean): Observable<Frame> =>
    new Observable<Frame>((sink) => {
      if (stopped) {
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
