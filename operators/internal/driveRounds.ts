/**
 * One subscription of driveInputRounds (rules in ../driveInputRounds.ts): the stop, the first
 * round, the end. One plain subscription per round instead of a graph of operators: a round
 * (inputRound.ts) owns its upstream exchange, the wait for its answers and the next round; the
 * rounds share one context (roundsContext.ts).
 */
import { Subscription, throwError } from 'rxjs';
import type { Observable, SchedulerLike, Subscriber, TeardownLogic } from 'rxjs';
import * as input from '../../src/codec/input/index.js';
import type { RoundOutput } from '../../src/codec/input/index.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import type { ErrorObject } from '../../src/protocol/jsonrpc.js';
import type { DriveInputRoundsConfig, InputRoundsDeps } from '../driveInputRounds.js';
import { runRound } from './inputRound.js';
import { roundsContext } from './roundsContext.js';

/** Runs the rounds for `subscriber`; returns the teardown of the subscription. */
export function driveRounds(
  config: DriveInputRoundsConfig,
  deps: InputRoundsDeps,
  scheduler: SchedulerLike,
  subscriber: Subscriber<RoundOutput>,
): TeardownLogic {
  const context = roundsContext(config, deps, scheduler, subscriber); // per subscription
  const exchange$ = firstExchange(deps);
  const work = new Subscription();
  let stopped: { readonly reason: string; readonly error?: ErrorObject } | undefined;
  const finish = (): void => {
    work.unsubscribe();
    if (stopped !== undefined) {
      const end = stopped.error && { error: stopped.error };
      context.apply(input.endRounds(context.state, end, stopped.reason), subscriber);
    }
    subscriber.complete();
  };
  // Subscribed before the first round, as `takeUntil` does: a stop before it starts nothing.
  work.add(
    deps.abort$.subscribe({
      next: (abort) => {
        if (stopped !== undefined || work.closed) return;
        stopped = abort;
        finish();
      },
      error: (error: unknown) => {
        work.unsubscribe();
        subscriber.error(error);
      },
    }),
  );
  if (!work.closed) runRound(context, 1, exchange$, {}, 0, work, finish);
  return () => work.unsubscribe();
}

/**
 * The exchange of round 1. A throw of `exchange` is a failure of that exchange (rule 18), as for
 * the later rounds, whose exchanges are made inside their round: an error output, not an error
 * of the stream.
 */
function firstExchange(deps: InputRoundsDeps): Observable<ExchangeEvent> {
  try {
    return deps.exchange(1, {});
  } catch (thrown: unknown) {
    return throwError(() => thrown);
  }
}
