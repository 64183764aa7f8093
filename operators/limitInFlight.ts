import { EMPTY, Observable } from 'rxjs';
import type { ObservableInput, OperatorFunction } from 'rxjs';
import { checkDone, createInFlightTasks, unsubscribeAll } from './internal/inFlightTasks.js';
import { runTask, taskOf } from './internal/runTask.js';

/** Settings of limitInFlight. */
export interface LimitInFlightConfig<T, R = unknown> {
  /** Most tasks running at once. Default 256 (docs/requests.md#requests-in-flight). */
  readonly maxInFlight: number;
  /** Most tasks waiting for a free place; above it a task is refused at once. Default 0. */
  readonly maxQueued: number;
  /**
   * Whether a value is a task that takes a place; others run at once, uncounted. Default: all.
   * A throw errors the output (rule 9): without its answer, the value has no task at all.
   */
  readonly counts?: (value: T) => boolean;
  /**
   * What a task that failed becomes (its error, or a throw of `project` or `refuse`): by default
   * nothing. The failure is contained in that task either way. A throw of `failed`, or an error
   * of what it returns, is contained too: the task ends with what it emitted so far, as with the
   * default (rule 11). A `failed` that must answer every value catches inside itself.
   */
  readonly failed?: (value: T, error: unknown) => ObservableInput<R>;
}

/** The defaults of limitInFlight (docs/requests.md#requests-in-flight). */
export const DEFAULT_LIMIT_IN_FLIGHT_CONFIG = Object.freeze({ maxInFlight: 256, maxQueued: 0 });

/**
 * Runs one inner observable per value, with a bounded number in flight and a bounded queue.
 * `mergeMap(fn, n)` cannot express this: its waiting queue is unbounded (docs/requests.md#requests-in-flight).
 *
 * ```text
 * values:   -abcd--------|      maxInFlight 2, maxQueued 1, each task -----(r|)
 * output:   ----x-AB---C-|      d is refused at once with x; c starts when a ends
 * ```
 *
 * A refusal comes in the same frame so that the reader never stalls (docs/README.md#easy-to-miss
 * item 21); a failed task never ends the others: one failure is one frame.
 * Callbacks that throw: `project`, `refuse` and `failed` belong to one task, so their throws stay
 * in it (rules 10 and 11); `counts` runs before there is a task, so its throw errors the output,
 * as a throwing predicate of `filter` does (rule 9).
 *
 * Rules (marbles/inFlightLimit.marbles.test.ts):
 * 1. at most maxInFlight counted tasks run at once
 * 2. a counted task above the limit waits in a queue of at most maxQueued tasks, and queued tasks start in FIFO order
 * 3. a counted task above the limit and the queue gets refuse(value) at once, in the same frame
 * 4. an uncounted value runs at once and takes no place
 * 5. a queued value is never dropped or reordered, undefined included
 * 6. a task that errors ends alone: failed(value, error) takes its place and the other tasks go on
 * 7. the output completes when the source completed and every task ended
 * 8. unsubscribing ends every running task and drops the queue
 * 9. a throw of counts errors the output, and no later value starts a task
 * 10. a throw of project or refuse fails that task alone, and failed takes its place
 * 11. a throw of failed, or an error of what it returns, ends that task alone with nothing in its place
 *
 * @example
 * import { map, of, timer } from 'rxjs';
 * import { limitInFlight } from 'mcp-bridge-sdk/operators';
 * const lines: string[] = [];
 * of(1, 2, 3)
 *   .pipe(
 *     limitInFlight(
 *       { maxInFlight: 2, maxQueued: 0 },
 *       (n) => timer(10).pipe(map(() => `done ${n}`)),
 *       (n) => of(`refused ${n}`),
 *     ),
 *   )
 *   .subscribe((line) => lines.push(line));
 * // lines, after 10 ms: ['refused 3', 'done 1', 'done 2']
 */
export function limitInFlight<T, R>(
  config: Partial<LimitInFlightConfig<T, R>>,
  project: (value: T) => ObservableInput<R>,
  refuse: (value: T) => ObservableInput<R>,
): OperatorFunction<T, R> {
  const { maxInFlight, maxQueued } = { ...DEFAULT_LIMIT_IN_FLIGHT_CONFIG, ...config };
  const counts = config.counts ?? (() => true);
  const failed = config.failed ?? ((): ObservableInput<R> => EMPTY);
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new RangeError('maxInFlight must be ≥ 1');
  if (!Number.isInteger(maxQueued) || maxQueued < 0) throw new RangeError('maxQueued must be ≥ 0');
  return (source) =>
    new Observable<R>((subscriber) => {
      // The places, the queue and the tasks of this subscription (internal/inFlightTasks.ts; one task
      // is internal/runTask.ts).
      const tasks = createInFlightTasks<T, R>(subscriber, { maxInFlight, maxQueued, project, failed });
      const sourceSubscription = source.subscribe({
        next: (value) => {
          // A source that emits synchronously goes on after the output failed inside subscribe.
          if (subscriber.closed) return;
          let counted: boolean;
          try {
            counted = counts(value);
          } catch (thrown: unknown) {
            subscriber.error(thrown); // rule 9, as a throwing predicate of `filter`
            return;
          }
          if (!counted) runTask(tasks, value, taskOf(value, project), false);
          else if (tasks.running < maxInFlight) runTask(tasks, value, taskOf(value, project), true);
          else if (tasks.queue.length < maxQueued) tasks.queue.push(value);
          else runTask(tasks, value, taskOf(value, refuse), false);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          tasks.sourceDone = true;
          checkDone(tasks);
        },
      });
      return () => {
        sourceSubscription.unsubscribe();
        unsubscribeAll(tasks);
        tasks.queue.length = 0;
      };
    });
}
