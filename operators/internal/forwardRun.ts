/**
 * One subscription of forwardRequest (rules in ../forwardRequest.ts): the state of the request in
 * one object, its start, its stop (a client cancel, the end of input, the loss of the upstream),
 * its outputs and its teardown. Round 1 is forwardFirstRound.ts, the slow-request lines
 * slowLines.ts, the input rounds after an `input_required` forwardRounds.ts.
 */
import type { SchedulerLike, Subject, Subscriber, Subscription, Unsubscribable } from 'rxjs';
import type { RoundOutput } from '../../src/codec/input/index.js';
import type { ProgressState } from '../../src/codec/progress.js';
import type { JsonValue, RequestFrame } from '../../src/protocol/jsonrpc.js';
import { CLIENT_CANCEL_REASON } from '../../src/protocol/cancelReasons.js';
import { isObject } from '../../src/protocol/jsonrpc.js';
import type { ForwardAbort, ForwardRequestConfig, ForwardRequestDeps } from '../forwardRequest.js';
import { failFirstRound, startFirstRound } from './forwardFirstRound.js';
import type { FirstRound } from './forwardFirstRound.js';
import { armSlowLines } from './slowLines.js';

/** What the requests of one forwardRequest share: made once per connection. */
export interface ForwardShared {
  readonly config: ForwardRequestConfig;
  readonly deps: ForwardRequestDeps<unknown>;
  readonly scheduler: SchedulerLike;
}

/** The state of one forwarded request. */
export interface Run extends ProgressState {
  readonly shared: ForwardShared;
  readonly request: RequestFrame;
  readonly subscriber: Subscriber<unknown>;
  /** The stop registered with `deps.track`. */
  readonly stop: (abort: ForwardAbort) => void;
  /** The reason sent upstream with `notifications/cancelled` when an exchange is cut. */
  cancelReason: string;
  /** True while the rounds wait for the client's answers (the slow-request line). */
  waitingForClient: boolean;
  ended: boolean;
  /** The round-1 exchange, then the round driver once a result says `input_required`. */
  current: Unsubscribable | undefined;
  /** Round 1's sink, also the work its limit watches. */
  first: FirstRound | undefined;
  /** The limit of round 1, until its response or the hand-over. */
  limit: Subscription | undefined;
  /** The next slow-request line, and how many were logged. */
  slow: Subscription | undefined;
  slowTicks: number;
  /**
   * When round 1's limit is longer than the wait for the first slow-request line, one action
   * does both (one entry and one clock read per request): the first line arms the rest of the
   * limit, this many ms, if round 1 still runs then.
   */
  limitAfterSlow: number | undefined;
  /** Only while the round driver runs: how a stop reaches it. */
  driverStop$: Subject<ForwardAbort> | undefined;
}

/** Runs one request for `subscriber`; returns the teardown of the subscription. */
export function runForward(
  shared: ForwardShared,
  request: RequestFrame,
  subscriber: Subscriber<unknown>,
): () => void {
  const clientMeta = request.params?.['_meta'];
  const progressToken: JsonValue | undefined = isObject(clientMeta) ? clientMeta['progressToken'] : undefined;
  const run: Run = {
    shared,
    request,
    subscriber,
    stop: (abort) => stopRun(run, abort),
    progressToken,
    lastProgress: -Infinity,
    cancelReason: CLIENT_CANCEL_REASON,
    waitingForClient: false,
    ended: false,
    current: undefined,
    first: undefined,
    limit: undefined,
    slow: undefined,
    slowTicks: 0,
    limitAfterSlow: undefined,
    driverStop$: undefined,
  };
  shared.deps.track(request.id, run.stop);
  // Rule 13: a stop at once (the input ended before) ends the request here.
  if (!run.ended) {
    armSlowLines(run);
    try {
      startFirstRound(run);
    } catch (error: unknown) {
      // Rule 12: as a failure of the exchange, this request's error output.
      failFirstRound(run, error);
    }
  }
  return () => {
    run.ended = true;
    run.slow?.unsubscribe();
    run.limit?.unsubscribe();
    run.current?.unsubscribe();
    shared.deps.untrack(request.id, run.stop);
  };
}

/** A client cancel, the end of input or the loss of the upstream (deps.track). */
function stopRun(run: Run, abort: ForwardAbort): void {
  if (run.ended) return;
  // Remembered before anything unsubscribes the upstream exchange: the reason goes upstream.
  run.cancelReason = abort.reason;
  if (run.driverStop$ !== undefined) {
    run.driverStop$.next(abort);
    return;
  }
  run.limit?.unsubscribe();
  run.current?.unsubscribe();
  if (abort.error !== undefined) emitGuarded(run, { type: 'error', error: abort.error });
  finish(run);
}

/** The output of one event for the client, if any; a throw of toClient errors the output (rule 12). */
export function emitGuarded(run: Run, output: RoundOutput): void {
  let value: unknown;
  try {
    value = run.shared.deps.toClient(run.request, output);
  } catch (error: unknown) {
    run.subscriber.error(error);
    return;
  }
  if (value !== undefined) run.subscriber.next(value);
}

/** A log line of the request; a throw of log errors the output (rule 12). */
export function logGuarded(run: Run, level: 'err' | 'warn' | 'info' | 'debug', text: string): void {
  try {
    run.shared.deps.log?.(level, text);
  } catch (error: unknown) {
    run.subscriber.error(error);
  }
}

/** Ends the request after its last output. */
export function finish(run: Run): void {
  run.ended = true;
  run.subscriber.complete();
}
