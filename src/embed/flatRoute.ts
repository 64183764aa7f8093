import { Observable } from 'rxjs';
import type { OperatorFunction } from 'rxjs';

/**
 * Emits the values `route` gives for each value of the source, in order, as `concatMap` of an
 * array would, without an inner subscription per value: every line of an embedded connection
 * passes here.
 *
 * ```text
 * source: -a--b-|      route(a) = [a1, a2], route(b) = []
 * output: -(xy)--|     x = a1, y = a2
 * ```
 *
 * Rules:
 * 1. the values of one source value are emitted in the order `route` gives them.
 * 2. a source value that arrives while the values of another are emitted (re-entry) waits for
 *    them, as with `concatMap`.
 * 3. a throw of `route` is the error of the output.
 * 4. the end and the error of the source are those of the output.
 */
export function flatRoute<T, R>(route: (value: T) => readonly R[]): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      const waiting: T[] = [];
      let emitting = false;
      return source.subscribe({
        next: (value) => {
          waiting.push(value);
          if (emitting) return;
          emitting = true;
          try {
            while (waiting.length > 0) {
              for (const step of route(waiting.shift() as T)) subscriber.next(step);
            }
          } catch (error) {
            subscriber.error(error);
          } finally {
            emitting = false;
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
