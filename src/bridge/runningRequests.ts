/**
 * The forwarded requests running on one client connection, and how each of them stops: a client
 * cancel by id or an abort of all (docs/lifecycle.md#lifecycle-upstream-loss). A part of the
 * session (src/bridge/session.ts), one per connection, never shared; it opens no subscription.
 */
import { ReplaySubject, Subject, defer, filter, of, take } from 'rxjs';
import type { Observable } from 'rxjs';
import type { RequestId } from '../protocol/jsonrpc.js';
import { append, unlink } from '../ports/linkedList.js';
import type { LinkedList, ListNode } from '../ports/linkedList.js';
import { CLIENT_CANCEL_REASON } from '../protocol/cancelReasons.js';
import type { RequestStop } from '../protocol/cancelReasons.js';

/** How a running request stops (src/protocol/cancelReasons.ts). */
export type Abort = RequestStop;

/** How a running request stops: a client cancel (no error) or an abort of all. */
export type Stop = (abort: Abort) => void;

/** The field of the running requests: a plain data field of the session object, which only the operations below write. */
export interface RunningFields {
  /**
   * The forwarded requests running now: those between their `track` and their `untrack`, also
   * while they finish after an abort. `initialize` and the changes of subscriptions do not count.
   * 0 at the start.
   */
  readonly tasks: number;
}

/** The running requests of a connection: its field and its operations. */
export interface RunningRequests extends RunningFields, RunningOperations {}

/** The events and operations of the running requests. Every function is a closure, so it may be called unbound. */
export interface RunningOperations {
  /** Client `notifications/cancelled`, by request id. */
  readonly cancels$: Observable<RequestId>;
  /** The abort of every running request (end of input or upstream loss), replayed for late subscribers. */
  readonly aborted$: Observable<Abort>;
  /** Emits once no forwarded request runs any more (at once when none runs), then completes. */
  readonly idle: () => Observable<unknown>;
  /** A client `notifications/cancelled`: stops every running request of that id, then emits `cancels$`. */
  readonly cancel: (id: RequestId) => void;
  /**
   * Stops every running request at once (end of input), then emits `aborted$`; later `track`s
   * stop at once with the last abort.
   */
  readonly abortAll: (abort: Abort) => void;
  /**
   * Registers how a running forwarded request stops, under its client id: a client cancel of
   * that id and `abortAll` reach it through the list of running requests, without a
   * subscription per request. After `abortAll` a new registration is stopped at once with that
   * abort. Counts the request in `tasks`.
   */
  readonly track: (id: RequestId, stop: Stop) => void;
  /** The request of a `track` ended: removes its registration, if still there, and ends its count. */
  readonly untrack: (id: RequestId, stop: Stop) => void;
}

const CLIENT_CANCEL: Abort = Object.freeze({ reason: CLIENT_CANCEL_REASON });

/** One running request in the list (track). */
interface Tracked extends ListNode<Tracked> {
  readonly id: RequestId;
  readonly stop: Stop;
}

/**
 * The operations of the running requests of the session whose field `fields` gives: they write
 * `tasks` (a plain field, as the lifecycle's: sessionLifecycle.ts says why).
 */
export function createRunningRequests(fields: () => { tasks: number }): RunningOperations {
  let aborted: Abort | undefined;
  // The running requests, oldest first, in the linked list of src/ports rather than a Map by id
  // (src/ports/linkedList.ts says why). A cancel by id walks the list; several requests may
  // share an id (a client bug): a cancel of that id stops all of them. Requests mostly end in
  // the order they started, so an untrack finds its entry near the head.
  const running: LinkedList<Tracked> = { head: undefined, tail: undefined };
  const cancels$ = new Subject<RequestId>();
  const aborted$ = new ReplaySubject<Abort>(1);
  const taskEnded$ = new Subject<void>();

  const stopsOf = (id: RequestId): Stop[] => {
    const stops: Stop[] = [];
    for (let node = running.head; node !== undefined; node = node.newer)
      if (node.id === id) stops.push(node.stop);
    return stops;
  };

  return {
    cancels$: cancels$.asObservable(),
    aborted$: aborted$.asObservable(),
    idle: () =>
      defer(() =>
        fields().tasks === 0
          ? of(0)
          : taskEnded$.pipe(
              filter(() => fields().tasks === 0),
              take(1),
            ),
      ),
    cancel: (id) => {
      for (const stop of stopsOf(id)) stop(CLIENT_CANCEL);
      cancels$.next(id);
    },
    abortAll: (abort) => {
      aborted = abort;
      const stops: Stop[] = [];
      for (let node = running.head; node !== undefined; node = running.head) {
        stops.push(node.stop);
        unlink(running, node);
      }
      for (const stop of stops) stop(abort);
      aborted$.next(abort);
    },
    track: (id, stop) => {
      fields().tasks += 1;
      if (aborted !== undefined) {
        stop(aborted);
        return;
      }
      append(running, { id, stop, older: undefined, newer: undefined });
    },
    untrack: (id, stop) => {
      for (let node = running.head; node !== undefined; node = node.newer) {
        if (node.stop === stop && node.id === id) {
          unlink(running, node);
          break;
        }
      }
      fields().tasks -= 1;
      // A Subject's next costs even without observers; only the stop after an upstream loss listens.
      if (taskEnded$.observed) taskEnded$.next();
    },
  };
}
