/**
 * One running task of limitInFlight (rules in ../limitInFlight.ts): its start, its end, which
 * passes its place on (rule 2), and its failure, which `failed` replaces (rule 6). The state of
 * the subscription the tasks share is inFlightTasks.ts. Not a public operator: operators/internal/
 * is not exported by operators/index.ts.
 *
 * Each task is one observer object whose functions are shared by all tasks and read the task from
 * `this` (RxJS calls an observer's functions as its methods): no closures per task, which were a
 * measurable part of a forwarded request (fewer objects per call).
 */
import { EMPTY, from, throwError } from 'rxjs';
import type { Observable, ObservableInput, Observer, Subscription } from 'rxjs';
import { checkDone } from './inFlightTasks.js';
import type { InFlightTasks } from './inFlightTasks.js';
import { append, unlink } from '../../src/ports/linkedList.js';
import type { ListNode } from '../../src/ports/linkedList.js';

/** One running task: its value, whether it holds a place, and its current subscription. */
export interface Task<T, R> extends Observer<R>, ListNode<Task<T, R>> {
  readonly tasks: InFlightTasks<T, R>;
  readonly value: T;
  readonly counted: boolean;
  ended: boolean;
  /** Set once subscribed; a task may end synchronously inside subscribe(), before that. */
  current: Subscription | undefined;
  /** In the list of running tasks (`older` and `newer` are its neighbours there). */
  linked: boolean;
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
 * and catchError: two operators per task were a measurable part of a forwarded request.
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

function link<T, R>(task: Task<T, R>): void {
  if (task.linked) return;
  task.linked = true;
  append(task.tasks, task);
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
  if (task.linked) {
    task.linked = false;
    unlink(tasks, task);
  }
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

/**
 * Rule 6: the failure of a task is `failed(value, error)`, in its place. Rule 11: a throw of
 * `failed`, or an error of what it returns, ends the task as the default `failed` does, with
 * nothing more: `failed` is the last handler of the task, so nothing is left that could turn
 * that error into a value, and erroring the output would end every other task with it.
 */
function failTask<T, R>(task: Task<T, R>, error: unknown): void {
  if (task.ended) return;
  const tasks = task.tasks;
  let fallback: ObservableInput<R>;
  try {
    fallback = tasks.failed(task.value, error);
  } catch {
    fallback = EMPTY;
  }
  const end = (): void => endTask(task);
  task.current = subscribeTo(fallback, {
    next: (output) => tasks.subscriber.next(output),
    error: end,
    complete: end,
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
