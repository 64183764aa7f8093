/**
 * The state of one client connection (docs/architecture.md#architecture-state). It lives inside the `defer` of
 * createBridge, one per subscription, never shared. What it holds is private to it: the other
 * files of the bridge read it through read-only fields and change it through its named
 * operations, and its events are observables that only it emits on. It opens no subscription.
 */
import { ReplaySubject, Subject, defer, filter, of, take } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import type { ClientAnswer } from '../../operators/driveInputRounds.js';
import type { ErrorObject, JsonObject, RequestId } from '../protocol/jsonrpc.js';
import { NO_LISTS } from '../codec/listen.js';
import type { DeclaredLists, ListSet } from '../codec/listen.js';
import type { MetaRule } from '../codec/meta.js';
import { NEWEST_CLIENT_REVISION } from '../codec/revisions.js';
import type { ClientRevision } from '../codec/revisions.js';
import { append, unlink } from '../ports/linkedList.js';
import type { LinkedList, ListNode } from '../ports/linkedList.js';
import type { UpstreamConnection } from '../ports/upstream.js';
import { CLIENT_CANCEL_REASON } from '../protocol/cancelReasons.js';
import { createLaneScheduler } from './laneScheduler.js';
import type { LaneScheduler } from './laneScheduler.js';

export type Phase = 'awaiting_initialize' | 'initializing' | 'ready' | 'closing';

export interface Abort {
  readonly reason: string;
  /** The response of requests stopped this way; none for a client cancel or the end of input. */
  readonly error?: ErrorObject;
}

/** How a running request stops: a client cancel (no error) or an abort of all. */
export type Stop = (abort: Abort) => void;

export interface ClientContext {
  readonly info: JsonObject;
  /**
   * As declared in `initialize`, whatever the client's revision (docs/revisions.md#revisions-declared):
   * decides which input kinds may be asked.
   */
  readonly capabilities: JsonObject;
  /** Translated for the upstream `_meta` (docs/lifecycle.md#lifecycle-capabilities-upstream). */
  readonly upstreamCapabilities: JsonObject;
  /** Which keys of a request's own `_meta` travel upstream (BridgeConfig.metaPassthrough); default: the reference rule. */
  readonly passesMeta?: MetaRule;
}

/** What a successful `initialize` decided (initialize.ts): the session becomes ready with it. */
export interface Initialized {
  readonly client: ClientContext;
  /** The revision the client speaks from now on (docs/revisions.md). */
  readonly revision: ClientRevision;
  readonly upstream: UpstreamConnection;
  /** The lists and subscriptions the initialize result declared (docs/notifications.md#notifications-listener). */
  readonly declared: DeclaredLists;
}

/**
 * One client connection. Every function is a closure of the session, so it may be passed and
 * called unbound (`track: session.track`).
 */
export interface Session {
  /** docs/lifecycle.md#lifecycle-states. */
  readonly phase: Phase;
  /** Set when the session became ready. */
  readonly client: ClientContext | undefined;
  readonly upstream: UpstreamConnection | undefined;
  readonly declared: DeclaredLists | undefined;
  /**
   * The revision the client speaks, decided by its `initialize` (docs/revisions.md): every
   * frame to the client is shaped for it. 2025-11-25 until then.
   */
  readonly revision: ClientRevision;
  /** Level of `logging/setLevel`, stamped on later upstream requests (docs/notifications.md#notifications-log-levels). */
  readonly logLevel: string | undefined;
  /** `notifications/initialized` arrived after the initialize result (docs/lifecycle.md#lifecycle-client-notifications). */
  readonly initialized: boolean;
  /**
   * The lists whose list request the bridge forwarded (tools, prompts, resources): the first
   * acknowledgment of the listen stream sends a list change for these only (README.md "List
   * changes and subscriptions").
   */
  readonly listsFetched: ListSet;
  /**
   * The forwarded requests running now: those between their `track` and their `untrack`, also
   * while they finish after an abort. `initialize` and the changes of subscriptions do not count.
   */
  readonly tasks: number;
  /** The time limits, slow-request lines and input waits of the requests: one lane scheduler per connection. */
  readonly lanes: LaneScheduler;

  /** Client answers to bridge requests (`b-` ids only). */
  readonly answers$: Observable<ClientAnswer>;
  /** Client `notifications/cancelled`, by request id. */
  readonly cancels$: Observable<RequestId>;
  /** The abort of every running request (end of input or upstream loss), replayed for late subscribers. */
  readonly aborted$: Observable<Abort>;
  /** The ready upstream; replayed for late subscribers. */
  readonly ready$: Observable<UpstreamConnection>;
  /** `notifications/initialized` accepted in state ready; replayed for late subscribers. */
  readonly initialized$: Observable<void>;
  /**
   * The first acknowledgment of the connection's listen stream came, after its catch-up was
   * made: list requests waiting for it go on (docs/notifications.md#notifications-first-list).
   */
  readonly listenAcknowledged$: Observable<void>;
  /** Emits once no forwarded request runs any more (at once when none runs), then completes. */
  readonly idle: () => Observable<unknown>;

  /** Per-connection counters of `b-N` and `elicitation-N` (docs/README.md#easy-to-miss-17). */
  readonly nextBridgeId: () => string;
  readonly nextElicitationId: () => string;
  /** An `initialize` started: phase `initializing`. */
  readonly beginInitialize: () => void;
  /** It failed or was cancelled: back to `awaiting_initialize` for a retry, unless the session is closing. */
  readonly initializeFailed: () => void;
  /** It succeeded: the session takes what it decided, becomes `ready` and emits `ready$`. */
  readonly becomeReady: (initialized: Initialized) => void;
  /**
   * `notifications/initialized` of the client: accepted once, in state ready only
   * (docs/lifecycle.md#lifecycle-client-notifications); emits `initialized$`. False when ignored.
   */
  readonly markInitialized: () => boolean;
  /** `logging/setLevel` (docs/notifications.md#notifications-log-levels). */
  readonly setLogLevel: (level: string) => void;
  /** The bridge forwarded a list request of these lists. */
  readonly listFetched: (lists: ListSet) => void;
  /** The first acknowledgment of the listen stream came: emits `listenAcknowledged$`. */
  readonly acknowledgeListen: () => void;
  /** A client answer to a bridge request: to the open bridge requests of the input rounds and the sign-in (`answers$`). */
  readonly answer: (answer: ClientAnswer) => void;
  /** A client `notifications/cancelled`: stops every running request of that id, then emits `cancels$`. */
  readonly cancel: (id: RequestId) => void;
  /**
   * Stops every running request at once (end of input), then emits `aborted$`; later `track`s
   * stop at once with the last abort.
   */
  readonly abortAll: (abort: Abort) => void;
  /** The upstream is gone: phase `closing`, then `abortAll` (docs/lifecycle.md#lifecycle-upstream-loss). */
  readonly upstreamLost: (abort: Abort) => void;
  /**
   * Registers how a running forwarded request stops, under its client id: a client cancel of
   * that id and `abortAll` reach it through the session's list of running requests, without a
   * subscription per request. After `abortAll` a new registration is stopped at once with that
   * abort. Counts the request in `tasks`.
   */
  readonly track: (id: RequestId, stop: Stop) => void;
  /** The request of a `track` ended: removes its registration, if still there, and ends its count. */
  readonly untrack: (id: RequestId, stop: Stop) => void;
  /** The connection ended: drops every scheduled action and closes the upstream. */
  readonly dispose: () => void;
}

const CLIENT_CANCEL: Abort = Object.freeze({ reason: CLIENT_CANCEL_REASON });

/** One running request in the list of the session (track). */
interface Tracked extends ListNode<Tracked> {
  readonly id: RequestId;
  readonly stop: Stop;
}

export function createSession(scheduler?: SchedulerLike): Session {
  let phase: Phase = 'awaiting_initialize';
  let ready: Initialized | undefined;
  let revision: ClientRevision = NEWEST_CLIENT_REVISION;
  let logLevel: string | undefined;
  let initialized = false;
  let listsFetched: ListSet = NO_LISTS;
  let tasks = 0;
  let bridgeIds = 0;
  let elicitationIds = 0;
  let aborted: Abort | undefined;
  // The running requests, oldest first, in the linked list of src/ports rather than a Map by id
  // (src/ports/linkedList.ts says why). A cancel by id walks the list; several requests may
  // share an id (a client bug): a cancel of that id stops all of them. Requests mostly end in
  // the order they started, so an untrack finds its entry near the head.
  const running: LinkedList<Tracked> = { head: undefined, tail: undefined };
  const answers$ = new Subject<ClientAnswer>();
  const cancels$ = new Subject<RequestId>();
  const aborted$ = new ReplaySubject<Abort>(1);
  const ready$ = new ReplaySubject<UpstreamConnection>(1);
  const initialized$ = new ReplaySubject<void>(1);
  const listenAcknowledged$ = new ReplaySubject<void>(1);
  const taskEnded$ = new Subject<void>();
  const lanes = createLaneScheduler(scheduler);

  const stopsOf = (id: RequestId): Stop[] => {
    const stops: Stop[] = [];
    for (let node = running.head; node !== undefined; node = node.newer)
      if (node.id === id) stops.push(node.stop);
    return stops;
  };
  const abortAll = (abort: Abort): void => {
    aborted = abort;
    const stops: Stop[] = [];
    for (let node = running.head; node !== undefined; node = running.head) {
      stops.push(node.stop);
      unlink(running, node);
    }
    for (const stop of stops) stop(abort);
    aborted$.next(abort);
  };

  return {
    get phase() {
      return phase;
    },
    get client() {
      return ready?.client;
    },
    get upstream() {
      return ready?.upstream;
    },
    get declared() {
      return ready?.declared;
    },
    get revision() {
      return revision;
    },
    get logLevel() {
      return logLevel;
    },
    get initialized() {
      return initialized;
    },
    get listsFetched() {
      return listsFetched;
    },
    get tasks() {
      return tasks;
    },
    lanes,
    answers$: answers$.asObservable(),
    cancels$: cancels$.asObservable(),
    aborted$: aborted$.asObservable(),
    ready$: ready$.asObservable(),
    initialized$: initialized$.asObservable(),
    listenAcknowledged$: listenAcknowledged$.asObservable(),
    idle: () =>
      defer(() =>
        tasks === 0
          ? of(0)
          : taskEnded$.pipe(
              filter(() => tasks === 0),
              take(1),
            ),
      ),
    nextBridgeId: () => `b-${++bridgeIds}`,
    nextElicitationId: () => `elicitation-${++elicitationIds}`,
    beginInitialize: () => {
      phase = 'initializing';
    },
    initializeFailed: () => {
      // docs/lifecycle.md#lifecycle-states: the client may retry, unless the upstream is already gone.
      if (phase !== 'closing') phase = 'awaiting_initialize';
    },
    becomeReady: (decided) => {
      ready = decided;
      revision = decided.revision;
      phase = 'ready';
      ready$.next(decided.upstream);
    },
    markInitialized: () => {
      if (phase !== 'ready' || initialized) return false;
      initialized = true;
      initialized$.next();
      return true;
    },
    setLogLevel: (level) => {
      logLevel = level;
    },
    listFetched: (lists) => {
      listsFetched |= lists;
    },
    acknowledgeListen: () => listenAcknowledged$.next(),
    answer: (answer) => answers$.next(answer),
    cancel: (id) => {
      for (const stop of stopsOf(id)) stop(CLIENT_CANCEL);
      cancels$.next(id);
    },
    abortAll,
    upstreamLost: (abort) => {
      phase = 'closing';
      abortAll(abort);
    },
    track: (id, stop) => {
      tasks += 1;
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
      tasks -= 1;
      // A Subject's next costs even without observers; only the stop after an upstream loss listens.
      if (taskEnded$.observed) taskEnded$.next();
    },
    dispose: () => {
      lanes.dispose();
      ready?.upstream.close();
    },
  };
}

/** The JSON-RPC error for a failure thrown inside a request's pipeline. */
export { errorOfThrown as toErrorObject } from '../codec/input/index.js';
