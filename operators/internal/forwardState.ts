/**
 * The state of one forwarded request (rules in ../forwardRequest.ts) and what every part of its
 * life writes with: its guarded outputs and log lines (rule 12) and its end. A leaf:
 * forwardRun.ts (start, stop, teardown), forwardRounds.ts (what the round driver gets) and
 * slowLines.ts import it, and it imports none of them.
 */
import type { SchedulerLike, Subscriber, Subscription } from 'rxjs';
import type { RoundOutput } from '../../src/codec/input/index.js';
import type { ProgressState } from '../../src/codec/progress.js';
import type { RequestFrame } from '../../src/protocol/jsonrpc.js';
import type { ForwardAbort, ForwardRequestConfig, ForwardRequestDeps } from '../forwardRequest.js';
import type { Rounds } from './driveRounds.js';

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
  ended: boolean;
  /** The rounds, from round 1 (driveRounds.ts); undefined for a request stopped as it was tracked. */
  rounds: Rounds | undefined;
  /** The next slow-request line, and how many were logged. */
  slow: Subscription | undefined;
  slowTicks: number;
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
