/**
 * The places, the queue and the running tasks of one subscription of limitInFlight (rules in
 * ../limitInFlight.ts). Not a public operator: operators/internal/ is not exported by
 * operators/index.ts (see inputRound.ts).
 *
 * Each task is one observer object whose functions are shared by all tasks and read the task from
 * `this` (RxJS calls an observer's functions as its methods): no closures per task, which were a
 * measurable part of a forwarded request (issue 13, fewer objects per call).
 */
import { from, throwError } from 'rxjs';
import type { Observable, ObservableInput, Observer, Subscriber, Subscription } from 'rxjs';

/** The state of one subscription of limitInFlight. */
export interface InFlightTasks<T, R> {
  readonly subscriber: Subscriber<R>;
  readonly maxInFlight: number;
  readonly maxQueued: number;
  readonly project: (value: T) => ObservableInput<R>;
  readonly failed: (value: T, error: unknown) => ObservableInput<R>;
  /** Counted values that wait for a place, oldest first. */
  readonly queue: T[];
  /**
   * The running tasks (counted or not), oldest first, in a list rather than a Set: a Set that
   * shrinks and grows with every burst of tasks leaves tables behind that keep finished tasks
   * alive through young-generation collections (issue 13, src/bridge/pendingTable.ts).
   */
  head: Task<T, R> | undefined;
  tail: Task<T, R> | undefined;
  /** Counted tasks running. */
  running: number;
  sourceDone: boolean;
}

/** One running task: its value, whether it holds a place, and its current subscription. */
interface Task<T, R> extends Observer<R> {
  readonly tasks: InFlightTasks<T, R>;
  readonly value: T;
  readonly counted: boolean;
  ended: boolean;
  /** Set once subscribed; a task may end synchronously inside subscribe(), before that. */
  current: Subscription | undefined;
  /** In the list of running tasks, with its neighbours there. */
  linked: boolean;
  older: Task<T, R> | undefined;
  newer: Task<T, R> | undefined;
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

function link<T, R>(task: Task<T, R>): void {
  if (task.linked) return;
  const tasks = task.tasks;
  task.linked = true;
  task.older = tasks.tail;
  if (tasks.tail === undefined) tasks.head = task;
  else tasks.tail.newer = task;
  tasks.tail = task;
}

function unlink<T, R>(task: Task<T, R>): void {
  if (!task.linked) return;
  const tasks = task.tasks;
  task.linked = false;
  if (task.older === undefined) tasks.head = task.newer;
  else task.older.newer = task.newer;
  if (task.newer === undefined) tasks.tail = task.older;
  else task.newer.older = task.older;
  task.older = undefined;
  task.newer = undefined;
}

/** Unsubscribes every running task (the operator's teardown); the queue is the caller's. */
export function unsubscribeAll<T, R>(tasks: InFlightTasks<T, R>): void {
  for (let task = tasks.head; task !== undefined; task = tasks.head) {
    unlink(task);
    task.current?.unsubscribe();
  }
}

/** Rule 7: the output completes when the source completed and every task ended. */
export function checkDone<T, R>(tasks: InFlightTasks<T, R>): void {
  if (tasks.sourceDone && tasks.head === undefined && tasks.queue.length === 0) tasks.subscriber.complete();
}

/** The task of a value; a throw of `make` is a failure of that task alone. */
export function taskOf<T, R>(value: T, make: (value: T) => ObservableInput<R>): ObservableInput<R> {
  try {
    return make(value);
  } catch (error: unknown) {
    return throwError(() => error);
  }
}

/**
 * Runs one task; a counted one holds a place until it ends. Subscribed by hand, not with defer
 * and catchError: two operators per task were a measurable part of a forwarded request (issue 13).
 */
export function runTask<T, R>(
  tasks: InFlightTasks<T, R>,
  value: T,
  input: ObservableInput<R>,
  counted: boolean,
): void {
  if (counted) tasks.running += 1;
  const task: Task<T, R> = {
    tasks,
    value,
    counted,
    ended: false,
    current: undefined,
    linked: false,
    older: undefined,
    newer: undefined,
    next: taskNext,
    error: taskError,
    complete: taskComplete,
  };
  const first = subscribeTo(input, task);
  // A task that failed synchronously runs its replacement already.
  if (task.current === undefined) {
    task.current = first;
    if (!task.ended) link(task);
  }
}

function taskNext<T, R>(this: Task<T, R>, output: R): void {
  this.tasks.subscriber.next(output);
}
function taskComplete<T, R>(this: Task<T, R>): void {
  endTask(this);
}
function taskError<T, R>(this: Task<T, R>, error: unknown): void {
  failTask(this, error);
}

/** The end of a task: its place goes to the oldest queued value (rule 2). */
function endTask<T, R>(task: Task<T, R>): void {
  if (task.ended) return;
  task.ended = true;
  const tasks = task.tasks;
  unlink(task);
  if (task.counted) {
    tasks.running -= 1;
    // By length, not by the value: a queued `undefined` is a task too (rule 5).
    if (tasks.queue.length > 0) {
      const next = tasks.queue.shift() as T;
      runTask(tasks, next, taskOf(next, tasks.project), true);
    }
  }
  checkDone(tasks);
}

/** Rule 6: the failure of a task is `failed(value, error)`, in its place. */
function failTask<T, R>(task: Task<T, R>, error: unknown): void {
  if (task.ended) return;
  const tasks = task.tasks;
  let fallback: ObservableInput<R>;
  try {
    fallback = tasks.failed(task.value, error);
  } catch (thrown: unknown) {
    fallback = throwError(() => thrown);
  }
  task.current = subscribeTo(fallback, {
    next: (output) => tasks.subscriber.next(output),
    error: (e: unknown) => tasks.subscriber.error(e),
    complete: () => endTask(task),
  });
  // A task that ended synchronously has already released its place.
  if (!task.ended) link(task);
}

/**
 * Subscribes to `input`; a throw of `from` (an input that is not observable) is an error of that
 * subscription, as inside `defer`.
 */
function subscribeTo<R>(input: ObservableInput<R>, observer: Observer<R>): Subscription {
  let source: Observable<R>;
  try {
    source = from(input);
  } catch (thrown: unknown) {
    source = throwError(() => thrown);
  }
  return source.subscribe(observer);
}
