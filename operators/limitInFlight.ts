import { Observable, from } from 'rxjs';
import type { ObservableInput, OperatorFunction, Subscription } from 'rxjs';

export interface LimitInFlightConfig<T> {
  /** Most tasks running at once. Default 256 (reference-behaviors.md §2.9). */
  readonly maxInFlight: number;
  /** Most tasks waiting for a free place; above it a task is refused at once. Default 0. */
  readonly maxQueued: number;
  /** Whether a value is a task that takes a place; others run at once, uncounted. Default: all. */
  readonly counts?: (value: T) => boolean;
}

export const DEFAULT_LIMIT_IN_FLIGHT_CONFIG = Object.freeze({ maxInFlight: 256, maxQueued: 0 });

/**
 * Runs one inner observable per value, with a bounded number in flight and a bounded queue.
 * `mergeMap(fn, n)` cannot express this: its waiting queue is unbounded (style.md §3.7, example C).
 *
 * ```text
 * values:   -abcd--------|      maxInFlight 2, maxQueued 1, each task -----(r|)
 * output:   ----x-AB---C-|      d is refused at once with x; c starts when a ends
 * ```
 *
 * Rules:
 * 1. At most `maxInFlight` counted tasks run at once.
 * 2. A counted task above the limit waits in a FIFO queue of at most `maxQueued` tasks.
 * 3. A counted task above the limit and the queue gets `refuse(value)` at once, in the same
 *    frame, so the reader never stalls (reference-behaviors.md §11 item 21).
 * 4. An uncounted value runs at once and takes no place.
 * 5. The output completes when the source completed and every task ended; an error of a task
 *    is an error of the output (callers catch inside the task: one failure is one frame).
 * 6. Unsubscribing ends every running task and drops the queue.
 */
export function limitInFlight<T, R>(
  config: Partial<LimitInFlightConfig<T>>,
  project: (value: T) => ObservableInput<R>,
  refuse: (value: T) => ObservableInput<R>,
): OperatorFunction<T, R> {
  const { maxInFlight, maxQueued } = { ...DEFAULT_LIMIT_IN_FLIGHT_CONFIG, ...config };
  const counts = config.counts ?? (() => true);
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new RangeError('maxInFlight must be ≥ 1');
  if (!Number.isInteger(maxQueued) || maxQueued < 0) throw new RangeError('maxQueued must be ≥ 0');
  return (source) =>
    new Observable<R>((subscriber) => {
      const queue: T[] = [];
      const inner = new Set<Subscription>();
      let running = 0;
      let sourceDone = false;

      const checkDone = (): void => {
        if (sourceDone && inner.size === 0 && queue.length === 0) subscriber.complete();
      };
      const run = (input: ObservableInput<R>, counted: boolean): void => {
        if (counted) running += 1;
        let ended = false;
        // A holder, because a task may end synchronously inside subscribe(), before assignment.
        const task: { subscription?: Subscription } = {};
        const end = (): void => {
          if (ended) return;
          ended = true;
          if (task.subscription !== undefined) inner.delete(task.subscription);
          if (counted) {
            running -= 1;
            const next = queue.shift();
            if (next !== undefined) run(project(next), true);
          }
          checkDone();
        };
        task.subscription = from(input).subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => subscriber.error(error),
          complete: end,
        });
        // A task that ended synchronously has already released its place.
        if (!ended) inner.add(task.subscription);
      };

      const sourceSubscription = source.subscribe({
        next: (value) => {
          if (!counts(value)) run(project(value), false);
          else if (running < maxInFlight) run(project(value), true);
          else if (queue.length < maxQueued) queue.push(value);
          else run(refuse(value), false);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          checkDone();
        },
      });
      return () => {
        sourceSubscription.unsubscribe();
        for (const subscription of inner) subscription.unsubscribe();
        inner.clear();
        queue.length = 0;
      };
    });
}
