/**
 * A scheduler for the many time limits and slow-request lines of one client connection
 * (docs/requests.md#requests-deadlines, docs/requests.md#requests-slow-lines), without a timer per
 * request: the actions of the same delay are due in the order they were scheduled, so each delay
 * keeps a FIFO list (a linked list of the actions themselves, src/ports/linkedList.ts: removing one
 * is O(1) and allocates nothing) and one action of the underlying scheduler for the first one.
 * Virtual time in tests works as with any scheduler: the lanes run on the scheduler given.
 *
 * It is a SchedulerLike, so `withDeadline` and `forwardRequest` take it as their `scheduler`.
 */
import { asyncScheduler } from 'rxjs';
import type { SchedulerAction, SchedulerLike, Subscription } from 'rxjs';
import { append, unlink } from '../ports/linkedList.js';
import type { LinkedList, ListNode } from '../ports/linkedList.js';
// Node fires timers above 2^31-1 ms at once: the lanes cap there, as every time limit does.
import { MAX_TIMER_MS } from '../ports/timerLimit.js';

/** A scheduler of lanes; `dispose` drops every action: nothing runs afterwards. */
export interface LaneScheduler extends SchedulerLike {
  dispose(): void;
}

/** One scheduled action: pending while `work` is set, and then in its lane's list. */
interface Entry extends ListNode<Entry> {
  readonly due: number;
  work: ((this: SchedulerAction<unknown>, state?: unknown) => void) | undefined;
  readonly state: unknown;
  readonly lane: Lane;
  closed: boolean;
  unsubscribe(): void;
}

/** The actions of one delay, oldest first (`head`), and the action armed for the first one. */
interface Lane extends LinkedList<Entry> {
  action: Subscription | undefined;
  /** The time the armed action runs at. */
  armedFor: number;
}

/**
 * The `unsubscribe` of every entry, called as its method: one function for all entries, not a
 * closure per action.
 */
function cancelEntry(this: Entry): void {
  if (this.closed) return;
  this.closed = true;
  this.work = undefined;
  unlink(this.lane, this);
  // The armed action stays, also when the lane is empty: it runs once at its time and arms for
  // the head then, if any. Dropping it would cost a timer per request again when requests come
  // one after the other; `dispose` drops it at the end.
}

/** An entry run by its lane asks to run again: a new entry of the same lane scheduler. */
function rescheduleUnsupported(): never {
  throw new Error('an action of the lane scheduler cannot reschedule itself');
}

export function createLaneScheduler(scheduler: SchedulerLike = asyncScheduler): LaneScheduler {
  const lanes = new Map<number, Lane>();
  let lastDelay = -1;
  let lastLane: Lane | undefined;
  let disposed = false;

  const arm = (lane: Lane): void => {
    const head = lane.head;
    if (head === undefined || disposed) return;
    // An action armed for a later time is replaced; one armed for an earlier or the same time
    // runs first and arms again for the entry then at the head.
    if (lane.action !== undefined && lane.armedFor <= head.due) return;
    lane.action?.unsubscribe();
    lane.armedFor = head.due;
    lane.action = scheduler.schedule(() => run(lane), Math.max(0, head.due - scheduler.now()));
  };

  const run = (lane: Lane): void => {
    lane.action = undefined;
    const now = scheduler.now();
    for (let entry = lane.head; entry !== undefined && entry.due <= now; entry = lane.head) {
      unlink(lane, entry);
      const work = entry.work;
      entry.work = undefined;
      entry.closed = true;
      work?.call(entry as unknown as SchedulerAction<unknown>, entry.state);
    }
    arm(lane);
  };

  const schedule = <T>(
    work: (this: SchedulerAction<T>, state?: T) => void,
    delayMs = 0,
    state?: T,
  ): Subscription => {
    const delay = Math.min(Math.max(0, delayMs), MAX_TIMER_MS);
    // Requests come with a few delays: the lane of the last one is looked up without the Map.
    let lane = delay === lastDelay ? lastLane : lanes.get(delay);
    if (lane === undefined) {
      lane = { head: undefined, tail: undefined, action: undefined, armedFor: 0 };
      lanes.set(delay, lane);
    }
    lastDelay = delay;
    lastLane = lane;
    const entry: Entry & { schedule: () => never } = {
      due: scheduler.now() + delay,
      work: work as Entry['work'],
      state,
      lane,
      closed: disposed,
      older: undefined,
      newer: undefined,
      unsubscribe: cancelEntry,
      schedule: rescheduleUnsupported,
    };
    if (!disposed) {
      append(lane, entry);
      arm(lane);
    }
    // A plain object that Subscription.add and every caller use through `closed` and
    // `unsubscribe` alone: a Subscription per action would cost an object and an array more.
    return entry as unknown as Subscription;
  };

  return {
    now: () => scheduler.now(),
    schedule,
    dispose() {
      disposed = true;
      for (const lane of lanes.values()) {
        lane.action?.unsubscribe();
        lane.action = undefined;
        for (let entry = lane.head; entry !== undefined; entry = entry.newer) {
          entry.work = undefined;
          entry.closed = true;
        }
        lane.head = undefined;
        lane.tail = undefined;
      }
      lanes.clear();
      lastLane = undefined;
      lastDelay = -1;
    },
  };
}
