import {
  asapScheduler,
  auditTime,
  buffer,
  connect,
  defer,
  dematerialize,
  map,
  materialize,
  merge,
  mergeMap,
} from 'rxjs';
import type { ObservableInput, ObservableNotification, Observable, SchedulerLike } from 'rxjs';

/** Settings of mergeInOrder. */
export interface MergeInOrderConfig<T> {
  /**
   * The upstream arrival number of a value: how many frames the upstream reader had read before
   * the frame it came from. Undefined for a value the bridge made itself (a gap replay, a
   * response of its own). Required. A throw errors the output, as a throwing `project` of `map`
   * does, and the values of that turn are not emitted (rule 7).
   */
  readonly sequenceOf: (value: T) => number | undefined;
  /** Where a turn ends: held values are released by a task scheduled here without delay. Default asapScheduler. */
  readonly scheduler?: SchedulerLike | undefined;
}

interface Arrival<T> {
  readonly notification: ObservableNotification<T>;
  readonly index: number;
}

/**
 * The values of one turn in upstream order: by arrival number; a value without one takes the
 * number of the value that arrived before it in the turn; ties keep the arrival order. The end
 * of the sources (complete or error) stays last.
 */
function inUpstreamOrder<T>(
  batch: Arrival<T>[],
  sequenceOf: (value: T) => number | undefined,
): ObservableNotification<T>[] {
  let previous = Number.NEGATIVE_INFINITY;
  const keyed = batch.map((arrival) => {
    const { notification } = arrival;
    if (notification.kind === 'N') previous = sequenceOf(notification.value) ?? previous;
    return { arrival, key: notification.kind === 'N' ? previous : Number.POSITIVE_INFINITY };
  });
  keyed.sort((a, b) => a.key - b.key || a.arrival.index - b.arrival.index);
  return keyed.map(({ arrival }) => arrival.notification);
}

/**
 * Merges frame streams so that values reach the output in the order the upstream wrote them,
 * even when one path delivers a frame later than another within the same turn
 * (docs/notifications.md#notifications-ordering: on stdio an event the upstream wrote before a result reaches
 * the client before that result).
 *
 * ```text
 * results:  ---R       R: upstream frame 2
 * events:   ---n       n: upstream frame 1, delivered after R by its path
 * output:   ---(nR)
 * ```
 *
 * Contract: a value is held from its arrival until the end of the current turn (a task of
 * `scheduler` without delay: a microtask with the default asapScheduler, the same frame in a
 * marble test). Then every value held in that turn is released, sorted by `sequenceOf`. No
 * value waits longer than one turn, so values of different turns are never reordered: the
 * operator repairs the order inside one synchronous dispatch of upstream frames, which is where
 * the paths of a stdio upstream can disagree, and nothing more.
 *
 * Rules (marbles/eventOrder.marbles.test.ts):
 * 1. an event written before a result is emitted before it
 * 2. values are released in the turn they arrived in
 * 3. values of different turns keep their turn order
 * 4. a value without a number stays right after the value that arrived before it
 * 5. an error is passed on after the values held before it
 * 6. completes when every source completed
 * 7. a throw of sequenceOf errors the output at the end of its turn, without the values held in it
 *
 * @example
 * import { of } from 'rxjs';
 * import { mergeInOrder } from 'mcp-bridge-sdk/operators';
 * const arrivals = new Map<string, number>([['list changed', 1], ['result', 2]]);
 * const seen: string[] = [];
 * mergeInOrder([of('result'), of('list changed')], { sequenceOf: (value) => arrivals.get(value) }).subscribe(
 *   (value) => seen.push(value),
 * );
 * // seen, once the asap scheduler ran: ['list changed', 'result']
 * @see docs/notifications.md#notifications-ordering
 */
export function mergeInOrder<T>(
  sources: readonly ObservableInput<T>[],
  config: MergeInOrderConfig<T>,
): Observable<T> {
  const { sequenceOf } = config;
  const scheduler = config.scheduler ?? asapScheduler;
  return defer(() => {
    let index = 0; // per subscription
    return merge(...sources).pipe(
      materialize(),
      map((notification): Arrival<T> => ({ notification, index: index++ })),
      // connect: the turn notifier listens before the first value flows.
      connect((arrivals$) => arrivals$.pipe(buffer(arrivals$.pipe(auditTime(0, scheduler))))),
      mergeMap((batch) => inUpstreamOrder(batch, sequenceOf)),
      dematerialize(),
    );
  });
}
