/**
 * One deadline queue per client connection: the time limits of the
 * forwarded requests (docs/requests.md#requests-deadlines) and their slow-request lines (docs/requests.md#requests-slow-lines) without a
 * timer per request. Entries of the same delay are due in the order they were added, so each
 * delay keeps a FIFO list (a linked list of the entries themselves, operators/internal/linkedList.ts:
 * removing an entry is O(1) and allocates nothing) and one action of the RxJS scheduler for the
 * first entry of that list. Virtual time in tests works as with `timer`.
 */
import { asyncScheduler } from 'rxjs';
import type { SchedulerLike, Subscription } from 'rxjs';
import { append, unlink } from '../ports/linkedList.js';
import type { LinkedList, ListNode } from '../ports/linkedList.js';

/** One pending deadline; `cancel` is idempotent and never calls `fire`. */
export interface Deadline {
  cancel(): void;
}

export interface DeadlineQueue {
  /**
   * Calls `fire(arg)` once, `delayMs` from now (capped at 2^31-1 ms), unless cancelled first.
   * With `arg`, a caller can pass a function made once instead of a closure per deadline.
   */
  add<A>(delayMs: number, fire: (arg: A) => void, arg: A): Deadline;
  add(delayMs: number, fire: () => void): Deadline;
  /** Drops every entry and every scheduled action: nothing fires afterwards. */
  dispose(): void;
}

/** An entry of a lane: pending while `fire` is set, and then in the lane's list. */
interface Entry extends Deadline, ListNode<Entry> {
  readonly due: number;
  fire: ((arg: unknown) => void) | undefined;
  readonly arg: unknown;
  /** The lane of the entry's delay. */
  readonly lane: Lane;
}

/** The entries of one delay, oldest first (`head`), and the action armed for the first one. */
interface Lane extends LinkedList<Entry> {
  action: Subscription | undefined;
  /** The time the action runs at. */
  armedFor: number;
}

/** Node fires timers above 2^31-1 ms at once; a longer limit is no limit in practice. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * The `cancel` of every entry, called as its method: one function for all entries, not a
 * closure per deadline.
 */
function cancelEntry(this: Entry): void {
  if (this.fire === undefined) return;
  this.fire = undefined;
  unlink(this.lane, this);
  // The armed action stays, also when the lane is empty: it runs once at its time and arms for
  // the head then, if any. Dropping it would cost a timer per request again when requests come
  // one after the other; `dispose` drops it at the end.
}

export function createDeadlineQueue(scheduler: SchedulerLike = asyncScheduler): DeadlineQueue {
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
      const fire = entry.fire;
      entry.fire = undefined;
      fire?.(entry.arg);
    }
    arm(lane);
  };

  const add = (delayMs: number, fire: (arg: unknown) => void, arg?: unknown): Deadline => {
    const delay = Math.min(Math.max(0, delayMs), MAX_DELAY_MS);
    // Requests come with a few delays: the lane of the last one is looked up without the Map.
    let lane = delay === lastDelay ? lastLane : lanes.get(delay);
    if (lane === undefined) {
      lane = { head: undefined, tail: undefined, action: undefined, armedFor: 0 };
      lanes.set(delay, lane);
    }
    lastDelay = delay;
    lastLane = lane;
    const entry: Entry = {
      due: scheduler.now() + delay,
      fire,
      arg,
      lane,
      older: undefined,
      newer: undefined,
      cancel: cancelEntry,
    };
    append(lane, entry);
    arm(lane);
    return entry;
  };

  return {
    add,
    dispose() {
      disposed = true;
      for (const lane of lanes.values()) {
        lane.action?.unsubscribe();
        lane.action = undefined;
        for (let entry = lane.head; entry !== undefined; entry = entry.newer) entry.fire = undefined;
        lane.head = undefined;
        lane.tail = undefined;
      }
      lanes.clear();
      lastLane = undefined;
      lastDelay = -1;
    },
  };
}
