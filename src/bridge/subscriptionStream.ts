/**
 * The listen stream of one chain (docs/notifications.md#notifications-reconnect, docs/notifications.md#notifications-subscribe, docs/http-upstream.md#http-listen-stream): one listen request
 * with the chain's filter, reopened by reopenListen after each loss, its events handed to the
 * subscription state (subscriptionState.ts), a loss of the active chain marked as a gap, and the
 * time limit of a change's first acknowledgment.
 */
import { EMPTY, NEVER, catchError, defer, finalize, merge, mergeMap, takeUntil, tap } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import { reopenListen } from '../../operators/reopenListen.js';
import { withDeadline } from '../../operators/withDeadline.js';
import { BridgeError } from '../protocol/bridgeError.js';
import type { ReopenListenConfig } from '../../operators/reopenListen.js';
import type { ExchangeEvent } from '../ports/upstream.js';
import { LISTEN_ACKNOWLEDGED } from '../codec/listen.js';
import { decideListenEnd } from '../codec/listenEnd.js';
import { bridgeError, formatDuration } from '../protocol/errors.js';
import type { Frame } from '../protocol/jsonrpc.js';
import { toErrorObject } from './session.js';
import { CLOSED } from './subscriptionState.js';
import { failureText } from '../ports/causeOf.js';
import { LISTEN_ENDED_REASON, TIMEOUT_REASON } from '../protocol/cancelReasons.js';
import type { Chain, SubscriptionState } from './subscriptionState.js';

export interface ChainStreamOptions {
  /** One listen request with the filter of `uris` (never empty); built at subscription time. */
  readonly openStream: (uris: readonly string[], cancelReason: () => string) => Observable<ExchangeEvent>;
  /** Backoff, clock, sign-in signal and log lines of the reconnect. */
  readonly reopen: Partial<ReopenListenConfig>;
  /**
   * How long the stream of a change may wait for its first acknowledgment before the change fails
   * with `timeout` (the list time limit, docs/requests.md#requests-deadlines).
   */
  readonly ackTimeoutMs: number;
  readonly scheduler?: SchedulerLike | undefined;
}

/**
 * The stream of a change that is not acknowledged within the limit: the change fails with
 * `timeout` and the stream is cancelled; the old stream stays in place (docs/notifications.md#notifications-subscribe).
 * The limit is withDeadline's on a wait that only the limit ends: one implementation of every time
 * limit (operators/internal/timeLimit.ts).
 */
function ackDeadline(state: SubscriptionState, options: ChainStreamOptions, chain: Chain): Observable<never> {
  const change = chain.change;
  if (change === undefined) return EMPTY;
  const detail = `${change.request.method}: no acknowledgment in ${formatDuration(options.ackTimeoutMs)}`;
  return NEVER.pipe(
    withDeadline({
      limitMs: options.ackTimeoutMs,
      error: () => new BridgeError('timeout', { detail }),
      scheduler: options.scheduler,
    }),
    catchError(() => {
      if (chain.acks === 0 && state.pending.has(change)) {
        state.fail(chain, bridgeError('timeout', detail), detail);
        state.kill(chain, TIMEOUT_REASON);
      }
      return EMPTY;
    }),
  );
}

/** The frames for the client of one chain, until the chain is killed. */
export function runChain(
  state: SubscriptionState,
  options: ChainStreamOptions,
  chain: Chain,
): Observable<Frame> {
  const stream$ = defer(() => {
    chain.streamAcks = 0;
    chain.cancelReason = CLOSED;
    return options.openStream(chain.uris, () => chain.cancelReason);
  }).pipe(
    tap((event) => {
      if (event.type === 'notification' && event.frame.method === 'notifications/cancelled') {
        chain.cancelReason = LISTEN_ENDED_REASON;
      }
    }),
    // A lost stream of the active chain is a gap: its next acknowledgment replays (docs/notifications.md#notifications-catch-up).
    finalize(() => {
      if (chain === state.active) state.gap = true;
    }),
  );
  return stream$.pipe(
    reopenListen({
      ...options.reopen,
      failBeforeFirstAck: chain.change !== undefined,
      // The bridge's own acknowledgment and end rules (docs/notifications.md#notifications-reconnect, docs/http-upstream.md#http-listen-stream).
      isAcknowledgment: (event) =>
        event.type === 'notification' && event.frame.method === LISTEN_ACKNOWLEDGED,
      classifyEnd: decideListenEnd,
    }),
    mergeMap((event) => state.handle(chain, event)),
    tap({
      complete: () => {
        const why = 'subscriptions/listen ended before its acknowledgment';
        state.fail(chain, bridgeError('invalid_response', why), why);
      },
    }),
    catchError((error: unknown) => {
      state.fail(chain, toErrorObject(error), failureText(error));
      return EMPTY;
    }),
    // Outside reopenListen: a reopen must not restart the clock of the change.
    (events$) => merge(events$, ackDeadline(state, options, chain)),
    takeUntil(chain.kill$),
  );
}
