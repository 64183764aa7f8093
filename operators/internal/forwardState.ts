/**
 * The state of one forwarded request (rules in ../forwardRequest.ts) and what every part of its
 * life writes with: its guarded outputs and log lines (rule 12) and its end. A leaf of the round
 * driver's files: forwardRun.ts (start, stop, teardown), forwardFirstRound.ts (round 1),
 * forwardRounds.ts (the input rounds) and slowLines.ts import it, and it imports none of them.
 */
import type { SchedulerLike, Subject, Subscriber, Subscription, Unsubscribable } from 'rxjs';
import type { RoundOutput } from '../../src/codec/input/index.js';
import type { ProgressState } from '../../src/codec/progress.js';
import type { RequestFrame } from '../../src/protocol/jsonrpc.js';
import type { ForwardAbort, ForwardRequestConfig, ForwardRequestDeps } from '../forwardRequest.js';
import type { FirstRound } from './forwardFirstRound.js';

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
