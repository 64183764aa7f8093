/**
 * Where one client connection is in its lifecycle (docs/lifecycle.md#lifecycle-states), and what
 * its `initialize` and later client notifications decided: the revision, the log level, the lists
 * fetched, the first listen acknowledgment. A part of the session (src/bridge/session.ts), one
 * per connection, never shared; it opens no subscription.
 */
import { ReplaySubject } from 'rxjs';
import type { Observable } from 'rxjs';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { NO_LISTS } from '../codec/listen.js';
import type { DeclaredLists, ListSet } from '../codec/listen.js';
import type { MetaRule } from '../codec/meta.js';
import { NEWEST_CLIENT_REVISION } from '../codec/revisions.js';
import type { ClientRevision } from '../codec/revisions.js';
import type { UpstreamConnection } from '../ports/upstream.js';

export type Phase = 'awaiting_initialize' | 'initializing' | 'ready' | 'closing';

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

/** The lifecycle of a connection. Every function is a closure, so it may be called unbound. */
export interface SessionLifecycle {
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

  /** The ready upstream; replayed for late subscribers. */
  readonly ready$: Observable<UpstreamConnection>;
  /** `notifications/initialized` accepted in state ready; replayed for late subscribers. */
  readonly initialized$: Observable<void>;
  /**
   * The first acknowledgment of the connection's listen stream came, after its catch-up was
   * made: list requests waiting for it go on (docs/notifications.md#notifications-first-list).
   */
  readonly listenAcknowledged$: Observable<void>;

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
  /** The upstream is gone: phase `closing`, for good (docs/lifecycle.md#lifecycle-upstream-loss). */
  readonly beginClosing: () => void;
}

export function createSessionLifecycle(): SessionLifecycle {
  let phase: Phase = 'awaiting_initialize';
  let ready: Initialized | undefined;
  let revision: ClientRevision = NEWEST_CLIENT_REVISION;
  let logLevel: string | undefined;
  let initialized = false;
  let listsFetched: ListSet = NO_LISTS;
  const ready$ = new ReplaySubject<UpstreamConnection>(1);
  const initialized$ = new ReplaySubject<void>(1);
  const listenAcknowledged$ = new ReplaySubject<void>(1);

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
    ready$: ready$.asObservable(),
    initialized$: initialized$.asObservable(),
    listenAcknowledged$: listenAcknowledged$.asObservable(),
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
    beginClosing: () => {
      phase = 'closing';
    },
  };
}
