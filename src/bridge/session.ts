/**
 * The state of one client connection (docs/architecture.md#architecture-state). It lives inside the `defer` of
 * createBridge, one per subscription, never shared. What it holds is private to it: the other
 * files of the bridge read it through read-only fields and change it through its named
 * operations, and its events are observables that only it emits on. It opens no subscription.
 *
 * It is made of two parts, split by role: the lifecycle (sessionLifecycle.ts) and the running
 * requests with their stops by id (runningRequests.ts). This file composes them and holds what
 * belongs to the connection as a whole: the lane scheduler, the ids of bridge requests, client
 * answers, and the loss and the end of the connection.
 */
import { Subject } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import type { ClientAnswer } from '../../operators/driveInputRounds.js';
import { createLaneScheduler } from './laneScheduler.js';
import type { LaneScheduler } from './laneScheduler.js';
import { createRunningRequests } from './runningRequests.js';
import type { Abort, RunningRequests } from './runningRequests.js';
import { createSessionLifecycle } from './sessionLifecycle.js';
import type { SessionLifecycle, WritableLifecycleFields } from './sessionLifecycle.js';
import { NO_LISTS } from '../codec/listen.js';
import { NEWEST_CLIENT_REVISION } from '../codec/revisions.js';

export type { Abort, Stop } from './runningRequests.js';
export type { ClientContext, Initialized, Phase } from './sessionLifecycle.js';

/**
 * One client connection. Every function is a closure of the session, so it may be passed and
 * called unbound (`track: session.track`).
 */
export interface Session extends Omit<SessionLifecycle, 'beginClosing'>, RunningRequests {
  /** The time limits, slow-request lines and input waits of the requests: one lane scheduler per connection. */
  readonly lanes: LaneScheduler;
  /** Client answers to bridge requests (`b-` ids only). */
  readonly answers$: Observable<ClientAnswer>;
  /** Per-connection counters of `b-N` and `elicitation-N` (docs/README.md#easy-to-miss-17). */
  readonly nextBridgeId: () => string;
  readonly nextElicitationId: () => string;
  /** A client answer to a bridge request: to the open bridge requests of the input rounds and the sign-in (`answers$`). */
  readonly answer: (answer: ClientAnswer) => void;
  /** The upstream is gone: phase `closing`, then `abortAll` (docs/lifecycle.md#lifecycle-upstream-loss). */
  readonly upstreamLost: (abort: Abort) => void;
  /** The connection ended: drops every scheduled action and closes the upstream. */
  readonly dispose: () => void;
}

export function createSession(scheduler?: SchedulerLike): Session {
  // The parts write the fields of the session object itself, which is made after them: they get
  // it through a function (sessionLifecycle.ts says why the fields are plain data).
  const lifecycle = createSessionLifecycle(() => session);
  const running = createRunningRequests(() => session);
  const lanes = createLaneScheduler(scheduler);
  const answers$ = new Subject<ClientAnswer>();
  let bridgeIds = 0;
  let elicitationIds = 0;

  // One object literal, fields and functions: V8 keeps it in fast mode.
  const session: Session & WritableLifecycleFields & { tasks: number } = {
    // The lifecycle at the start of a connection (sessionLifecycle.ts).
    phase: 'awaiting_initialize',
    client: undefined,
    upstream: undefined,
    declared: undefined,
    revision: NEWEST_CLIENT_REVISION,
    logLevel: undefined,
    initialized: false,
    listsFetched: NO_LISTS,
    // No request runs yet (runningRequests.ts).
    tasks: 0,
    lanes,
    answers$: answers$.asObservable(),
    cancels$: running.cancels$,
    aborted$: running.aborted$,
    ready$: lifecycle.ready$,
    initialized$: lifecycle.initialized$,
    listenAcknowledged$: lifecycle.listenAcknowledged$,
    idle: running.idle,
    nextBridgeId: () => `b-${++bridgeIds}`,
    nextElicitationId: () => `elicitation-${++elicitationIds}`,
    beginInitialize: lifecycle.beginInitialize,
    initializeFailed: lifecycle.initializeFailed,
    becomeReady: lifecycle.becomeReady,
    markInitialized: lifecycle.markInitialized,
    setLogLevel: lifecycle.setLogLevel,
    listFetched: lifecycle.listFetched,
    acknowledgeListen: lifecycle.acknowledgeListen,
    answer: (answer) => answers$.next(answer),
    cancel: running.cancel,
    abortAll: running.abortAll,
    upstreamLost: (abort) => {
      lifecycle.beginClosing();
      running.abortAll(abort);
    },
    track: running.track,
    untrack: running.untrack,
    dispose: () => {
      lanes.dispose();
      session.upstream?.close();
    },
  };
  return session;
}

/** The JSON-RPC error for a failure thrown inside a request's pipeline. */
export { errorOfThrown as toErrorObject } from '../codec/input/index.js';
