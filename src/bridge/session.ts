/**
 * The state of one client connection (docs/architecture.md#architecture-state). It lives inside the `defer` of
 * createBridge, one per subscription, never shared.
 */
import { ReplaySubject, Subject } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import type { ClientAnswer } from '../../operators/driveInputRounds.js';
import type { ErrorObject, JsonObject, RequestId } from '../protocol/jsonrpc.js';
import { NO_LISTS } from '../codec/listen.js';
import type { DeclaredLists, ListSet } from '../codec/listen.js';
import type { MetaRule } from '../codec/meta.js';
import { NEWEST_CLIENT_REVISION } from '../codec/revisions.js';
import type { ClientRevision } from '../codec/revisions.js';
import { createLaneScheduler } from '../../operators/internal/laneScheduler.js';
import type { LaneScheduler } from '../../operators/internal/laneScheduler.js';
import type { UpstreamConnection } from '../ports/upstream.js';

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

export interface Session {
  phase: Phase;
  client: ClientContext | undefined;
  upstream: UpstreamConnection | undefined;
  declared: DeclaredLists | undefined;
  /**
   * The revision the client speaks, decided by its `initialize` (docs/revisions.md): every
   * frame to the client is shaped for it. 2025-11-25 until then.
   */
  revision: ClientRevision;
  /** Level of `logging/setLevel`, stamped on later upstream requests (docs/notifications.md#notifications-log-levels). */
  logLevel: string | undefined;
  /** `notifications/initialized` arrived after the initialize result (docs/lifecycle.md#lifecycle-client-notifications). */
  initialized: boolean;
  /**
   * The lists whose list request the bridge forwarded (tools, prompts, resources): the first
   * acknowledgment of the listen stream sends a list change for these only (README.md "List
   * changes and subscriptions").
   */
  listsFetched: ListSet;
  /** Requests running as tasks (forwarded, initialize, subscriptions). */
  tasks: number;
  /** Per-connection counters of `b-N` and `elicitation-N` (docs/README.md#easy-to-miss-17). */
  readonly nextBridgeId: () => string;
  readonly nextElicitationId: () => string;
  /** Client answers to bridge requests (`b-` ids only). */
  readonly answers$: Subject<ClientAnswer>;
  /** Client `notifications/cancelled`, by request id. */
  readonly cancels$: Subject<RequestId>;
  /** Stops every running request at once: end of input or upstream loss. */
  readonly abortAll$: ReplaySubject<Abort>;
  /** The ready upstream; replayed for late subscribers. */
  readonly ready$: ReplaySubject<UpstreamConnection>;
  /** `notifications/initialized` accepted in state ready. */
  readonly initialized$: ReplaySubject<void>;
  /**
   * The first acknowledgment of the connection's listen stream came, after its catch-up was
   * made: list requests waiting for it go on (docs/notifications.md#notifications-first-list).
   */
  readonly listenAcknowledged$: ReplaySubject<void>;
  /** A task ended (for the stop after an upstream loss). */
  readonly taskEnded$: Subject<void>;
  /**
   * Registers how a running forwarded request stops, under its client id: a client cancel of
   * that id and `abortAll$` reach it from one subscription of the session, through the session's
   * list of running requests,
   * instead of a subscription per request. After `abortAll$` a new
   * registration is stopped at once with the last abort, as the replay of `abortAll$` would.
   */
  track(id: RequestId, stop: Stop): void;
  /** Removes a registration of `track` (the request ended). */
  untrack(id: RequestId, stop: Stop): void;
  /** The time limits, slow-request lines and input waits of the requests: one lane scheduler per connection. */
  readonly lanes: LaneScheduler;
}

const CLIENT_CANCEL: Abort = Object.freeze({ reason: 'the client canceled the request' });

/** One running request in the list of the session (track). */
interface Tracked {
  readonly id: RequestId;
  readonly stop: Stop;
  prev: Tracked | undefined;
  next: Tracked | undefined;
}

export function createSession(scheduler?: SchedulerLike): Session {
  let bridgeIds = 0;
  let elicitationIds = 0;
  // The running requests, oldest first, in a list rather than a Map by id: a Map that
  // shrinks and grows with every burst of requests leaves tables behind that keep finished
  // requests alive through young-generation collections (src/bridge/pendingTable.ts). A cancel
  // by id walks the list; several requests may share an id (a client bug): a cancel of that id
  // stops all of them. Requests mostly end in the order they started, so an untrack finds its
  // entry near the head.
  let head: Tracked | undefined;
  let tail: Tracked | undefined;
  let aborted: Abort | undefined;
  const unlink = (node: Tracked): void => {
    if (node.prev === undefined) head = node.next;
    else node.prev.next = node.next;
    if (node.next === undefined) tail = node.prev;
    else node.next.prev = node.prev;
    node.prev = undefined;
    node.next = undefined;
  };
  const stopsOf = (id: RequestId | undefined): Stop[] => {
    const stops: Stop[] = [];
    for (let node = head; node !== undefined; node = node.next)
      if (id === undefined || node.id === id) stops.push(node.stop);
    return stops;
  };
  const session: Session = {
    phase: 'awaiting_initialize',
    client: undefined,
    upstream: undefined,
    declared: undefined,
    revision: NEWEST_CLIENT_REVISION,
    logLevel: undefined,
    initialized: false,
    listsFetched: NO_LISTS,
    tasks: 0,
    nextBridgeId: () => `b-${++bridgeIds}`,
    nextElicitationId: () => `elicitation-${++elicitationIds}`,
    answers$: new Subject(),
    cancels$: new Subject(),
    abortAll$: new ReplaySubject(1),
    ready$: new ReplaySubject(1),
    initialized$: new ReplaySubject(1),
    listenAcknowledged$: new ReplaySubject(1),
    taskEnded$: new Subject(),
    track(id, stop) {
      if (aborted !== undefined) {
        stop(aborted);
        return;
      }
      const node: Tracked = { id, stop, prev: tail, next: undefined };
      if (tail === undefined) head = node;
      else tail.next = node;
      tail = node;
    },
    untrack(id, stop) {
      for (let node = head; node !== undefined; node = node.next) {
        if (node.stop === stop && node.id === id) {
          unlink(node);
          return;
        }
      }
    },
    lanes: createLaneScheduler(scheduler),
  };
  session.cancels$.subscribe((id) => {
    for (const stop of stopsOf(id)) stop(CLIENT_CANCEL);
  });
  session.abortAll$.subscribe((abort) => {
    aborted = abort;
    const stops = stopsOf(undefined);
    for (let node = head; node !== undefined; node = head) unlink(node);
    for (const stop of stops) stop(abort);
  });
  return session;
}

/** The JSON-RPC error for a failure thrown inside a request's pipeline. */
export { errorOfThrown as toErrorObject } from '../codec/input/index.js';
