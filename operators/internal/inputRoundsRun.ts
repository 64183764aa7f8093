/**
 * One subscription of driveInputRounds (rules in ../driveInputRounds.ts): the round driver
 * (driveRounds.ts, which forwardRequest runs for every request too) with the operator's
 * dependencies, and its stop from `abort$`.
 */
import type { SchedulerLike, Subscriber, TeardownLogic } from 'rxjs';
import type { RoundOutput } from '../../src/codec/input/index.js';
import type { DriveInputRoundsConfig, InputRoundsDeps } from '../driveInputRounds.js';
import { driveRounds, startRounds, stopRounds } from './driveRounds.js';
import { closeRounds } from './roundsContext.js';

/** Runs the rounds for `subscriber`; returns the teardown of the subscription. */
export function runInputRounds(
  config: DriveInputRoundsConfig,
  deps: InputRoundsDeps,
  scheduler: SchedulerLike,
  subscriber: Subscriber<RoundOutput>,
): TeardownLogic {
  const rounds = driveRounds(
    config,
    {
      connection: deps,
      // Plain functions, as their types promise, whatever `deps` is.
      exchange: (round, extras) => deps.exchange(round, extras),
      log: deps.log,
      limitMs: deps.limitMs,
      limitFailure: deps.limitFailure,
    },
    scheduler,
    subscriber,
    subscriber,
  );
  // Subscribed before round 1, as `takeUntil` does: a stop before it starts nothing.
  const abort = deps.abort$.subscribe({
    next: (stop) => stopRounds(rounds, stop),
    error: (error: unknown) => {
      closeRounds(rounds);
      subscriber.error(error);
    },
  });
  if (!rounds.closed) startRounds(rounds);
  return () => {
    abort.unsubscribe();
    closeRounds(rounds);
  };
}
