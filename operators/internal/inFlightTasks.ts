/**
 * The places, the queue and the running tasks of one subscription of limitInFlight (rules in
 * ../limitInFlight.ts), with its teardown and its completion; one running task is runTask.ts. Not
 * a public operator: operators/internal/ is not exported by operators/index.ts (see inputRound.ts).
 */
import type { ObservableInput, Subscriber } from 'rxjs';
import { unlink } from '../../src/ports/linkedList.js';
import type { LinkedList } from '../../src/ports/linkedList.js';
import type { Task } from './runTask.js';

/**
 * The state of one subscription of limitInFlight. The running tasks (counted or not) are a list,
 * oldest first (`head`, `tail`; linkedList.ts), rather than a Set: a Set that shrinks and grows
 * with every burst of tasks leaves tables behind that keep finished tasks alive through
 * young-generation collections (src/bridge/pendingTable.ts).
 */
export interface InFlightTasks<T, R> extends LinkedList<Task<T, R>> {
  readonly subscriber: Subscriber<R>;
  readonly maxInFlight: number;
  readonly maxQueued: number;
  readonly project: (value: T) => ObservableInput<R>;
  readonly failed: (value: T, error: unknown) => ObservableInput<R>;
  /** Counted values that wait for a place, oldest first. */
  readonly queue: T[];
  /** Counted tasks running. */
  running: number;
  sourceDone: boolean;
}

export function createInFlightTasks<T, R>(
  subscriber: Subscriber<R>,
  config: Pick<InFlightTasks<T, R>, 'maxInFlight' | 'maxQueued' | 'project' | 'failed'>,
): InFlightTasks<T, R> {
  return {
    subscriber,
    maxInFlight: config.maxInFlight,
    maxQueued: config.maxQueued,
    project: config.project,
    failed: config.failed,
    queue: [],
    head: undefined,
    tail: undefined,
    running: 0,
    sourceDone: false,
  };
}

/** Rule 8: unsubscribes every running task (the operator's teardown); the queue is the caller's. */
export function unsubscribeAll<T, R>(tasks: InFlightTasks<T, R>): void {
  for (let task = tasks.head; task !== undefined; task = tasks.head) {
    task.linked = false;
    unlink(tasks, task);
    task.current?.unsubscribe();
  }
}

/** Rule 7: the output completes when the source completed and every task ended. */
export function checkDone<T, R>(tasks: InFlightTasks<T, R>): void {
  if (tasks.sourceDone && tasks.head === undefined && tasks.queue.length === 0) tasks.subscriber.complete();
}
