import {
  asyncScheduler,
  defer,
  finalize,
  merge,
  mergeMap,
  ReplaySubject,
  takeUntil,
  throwError,
  timer,
} from 'rxjs';
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';

/** Settings of withDeadline. */
export interface WithDeadlineConfig {
  /** Time from subscription to the end of the source, in ms. */
  readonly limitMs: number;
  /** The error the output fails with when the limit passes first; if it throws, what it threw (rule 5). */
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
 * Rules (marbles/deadline.marbles.test.ts):
 * 1. values pass unchanged until the limit, and they do not extend it
 * 2. at the limit the source is unsubscribed and the output fails with config.error()
 * 3. a source that completes first stops the clock, also when it completes synchronously
 * 4. a limit above 2^31-1 ms is capped there
 * 5. a throw of config.error fails the output with what it threw, at the limit
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
  // Node timers fire at once above 2^31-1 ms; a longer limit is no limit in practice.
  const limitMs = Math.min(config.limitMs, 2_147_483_647);
  const scheduler = config.scheduler ?? asyncScheduler;
  if (!(limitMs >= 0)) throw new RangeError('limitMs must be ≥ 0');
  return (source) =>
    defer(() => {
      // Replayed: a source that ends during its subscription ends before the clock starts.
      const ended = new ReplaySubject<void>(1);
      const deadline$ = timer(limitMs, scheduler).pipe(
        mergeMap(() => throwError(config.error)),
        takeUntil(ended),
      );
      return merge(source.pipe(finalize(() => ended.next())), deadline$);
    });
}
