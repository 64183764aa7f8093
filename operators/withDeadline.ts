import { Observable, asyncScheduler } from 'rxjs';
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';
import { armLimit } from './internal/timeLimit.js';
import type { LimitedWork } from './internal/timeLimit.js';

/** Settings of withDeadline. */
export interface WithDeadlineConfig {
  /** Time from subscription to the end of the source, in ms. */
  readonly limitMs: number;
  /**
   * The error the output fails with when the limit passes first; if it throws, what it threw
   * (rule 5). Called before the source is unsubscribed (rule 6).
   */
  readonly error: () => Error;
  /** Virtual time in tests. Default asyncScheduler. */
  readonly scheduler?: SchedulerLike | undefined;
}

/**
 * Fails a source that has not completed within a time limit, and unsubscribes it, which
 * cancels the upstream exchange behind it (docs/requests.md#requests-deadlines).
 *
 * ```text
 * source:  -p--p--p--...     limit 5
 * output:  -p--p#            # = config.error()
 * ```
 *
 * Unlike `timeout({ first })`, values do not stop the clock: progress notifications of a tool
 * call never extend its limit.
 *
 * Node timers fire at once above 2^31-1 ms (about 24.8 days), hence the cap.
 *
 * Written by hand, as RxJS writes its own operators: per subscription the source subscribed with
 * the output's subscriber, and one action of the scheduler. That action is the one time limit of the
 * operators (internal/timeLimit.ts), which forwardRequest also runs for round 1 of a request.
 *
 * Rules (marbles/deadline.marbles.test.ts):
 * 1. values pass unchanged until the limit, and they do not extend it
 * 2. at the limit the source is unsubscribed and the output fails with config.error()
 * 3. a source that completes first stops the clock, also when it completes synchronously
 * 4. a limit above 2^31-1 ms is capped there
 * 5. a throw of config.error fails the output with what it threw, at the limit
 * 6. config.error is called before the source is unsubscribed
 * 7. config.error is called as a plain function, not as a method of an object of the operator
 *
 * @example
 * import { NEVER } from 'rxjs';
 * import { withDeadline } from 'mcp-bridge-sdk/operators';
 * let failure = '';
 * NEVER.pipe(withDeadline({ limitMs: 100, error: () => new Error('no answer in 100 ms') })).subscribe({
 *   error: (error: Error) => (failure = error.message),
 * });
 * // failure, after 100 ms: 'no answer in 100 ms'
 */
export function withDeadline<T>(config: WithDeadlineConfig): MonoTypeOperatorFunction<T> {
  const limitMs = config.limitMs;
  const scheduler = config.scheduler ?? asyncScheduler;
  if (!(limitMs >= 0)) throw new RangeError('limitMs must be ≥ 0');
  return (source) =>
    new Observable<T>((subscriber) => {
      // The source straight into the subscriber (no subscriber between them): its end is the
      // output's, which also drops the action. The source first: one that ends during its
      // subscription starts no clock (rule 3).
      source.subscribe(subscriber);
      if (subscriber.closed) return;
      // Closures over this subscription: config.error is called as the plain function its type
      // promises, never as a method of an object of ours.
      const error = config.error;
      const work: LimitedWork = {
        ended: () => subscriber.closed,
        // Rule 6: the error first; a throw is the failure (rule 5).
        limitFailure: () => error(),
        // The output fails, whose teardown unsubscribes the source in the same frame.
        failAtLimit: (failure) => subscriber.error(failure),
      };
      subscriber.add(armLimit(scheduler, limitMs, work));
    });
}
