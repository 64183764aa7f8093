import { connect, startWith, switchMap, take } from 'rxjs';
import type { OperatorFunction } from 'rxjs';

/**
 * Starts `project` only at the first value of the source, and gives it every value from that
 * one on. An empty source never starts it: embedded mode starts a server only for a path that
 * was selected (docs/embedded.md#embedded-selection).
 *
 * ```text
 * source:  --a-b-|
 * project: --^----   subscribed at a, sees a, b, then the end
 * ```
 *
 * Rules:
 * 1. `project` is subscribed at the first value and sees it first.
 * 2. no value is lost or repeated, also when several arrive in one synchronous burst.
 * 3. an empty source completes without subscribing `project`.
 */
export function whenFirst<T, R>(project: OperatorFunction<T, R>): OperatorFunction<T, R> {
  return (source) =>
    source.pipe(
      connect((shared$) =>
        shared$.pipe(
          take(1),
          // Subscribed while the first value is being delivered, so `shared$` gives the rest only.
          switchMap((first) => shared$.pipe(startWith(first), project)),
        ),
      ),
    );
}
