/**
 * The one time limit of the operators (docs/requests.md#requests-deadlines): an action of the
 * scheduler that, at the limit, makes the failure first and then fails the work with it, which
 * cuts the work's source. `withDeadline` runs it for any source; the round driver (inputRound.ts)
 * runs it for each round with a limit, the round being the work, without an observable around
 * the exchange.
 */
import type { SchedulerAction, SchedulerLike, Subscription } from 'rxjs';
import { MAX_TIMER_MS } from '../../src/ports/timerLimit.js';

/** The work a limit watches; its functions are called as its methods. */
export interface LimitedWork {
  /** True once the work ended: the limit then does nothing. */
  ended(this: LimitedWork): boolean;
  /**
   * The failure at the limit. Called before the work is cut, so that a cancellation sent
   * upstream can carry the reason it sets (withDeadline rule 6).
   */
  limitFailure(this: LimitedWork): unknown;
  /** Ends the work with the failure (or what `limitFailure` threw): cuts its source. */
  failAtLimit(this: LimitedWork, failure: unknown): void;
}

/** Schedules the limit of `work`, `limitMs` from now, capped at MAX_TIMER_MS. */
export function armLimit(scheduler: SchedulerLike, limitMs: number, work: LimitedWork): Subscription {
  return scheduler.schedule(atLimit, Math.min(limitMs, MAX_TIMER_MS), work);
}

function atLimit(this: SchedulerAction<LimitedWork>, work?: LimitedWork): void {
  if (work === undefined || work.ended()) return;
  let failure: unknown;
  try {
    failure = work.limitFailure();
  } catch (thrown: unknown) {
    failure = thrown;
  }
  work.failAtLimit(failure);
}
