/**
 * Where one client connection is in its lifecycle (docs/lifecycle.md#lifecycle-states), and what
 * its `initialize` and later client notifications decided: the revision, the log level, the lists
 * fetched, the first listen acknowledgment. A part of the session (src/bridge/session.ts), one
 * per connection, never shared; it opens no subscription.
 */
import { ReplaySubject } from 'rxjs';
import type { Observable } from 'rxjs';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { DeclaredLists, ListSet } from '../codec/listen.js';
import type { MetaRule } from '../codec/meta.js';
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

/**
 * The fields of the lifecycle: plain data fields of the session object (session.ts makes them
 * with their values at the start), which only the operations below write.
 */
export interface LifecycleFields {
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
}

/** The fields as the operations write them. */
export type WritableLifecycleFields = { -readonly [K in keyof LifecycleFields]: LifecycleFields[K] };

/** The events and operations of the lifecycle. Every function is a closure, so it may be called unbound. */
export interface LifecycleOperations {
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

/** The lifecycle of a connection: its fields and its operations. */
export interface SessionLifecycle extends LifecycleFields, LifecycleOperations {}

/**
 * The operations of the lifecycle of the session whose fields `fields` gives: they write its
 * fields, which the rest of the bridge reads as plain data (no getters: an object literal with a
 * getter is a dictionary on Node 20, and every read of it a lookup, bench/README.md "The view of
 * the upstream as options"). A function, because the session object is made after its parts.
 */
export function createSessionLifecycle(fields: () => WritableLifecycleFields): LifecycleOperations {
  const ready$ = new ReplaySubject<UpstreamConnection>(1);
  const initialized$ = new ReplaySubject<void>(1);
  const listenAcknowledged$ = new ReplaySubject<void>(1);

  return {
    ready$: ready$.asObservable(),
    initialized$: initialized$.asObservable(),
    listenAcknowledged$: listenAcknowledged$.asObservable(),
    beginInitialize: () => {
      fields().phase = 'initializing';
    },
    initializeFailed: () => {
      const state = fields();
      // docs/lifecycle.md#lifecycle-states: the client may retry, unless the upstream is already gone.
      if (state.phase !== 'closing') state.phase = 'awaiting_initialize';
    },
    becomeReady: (decided) => {
      const state = fields();
      state.client = decided.client;
      state.upstream = decided.upstream;
      state.declared = decided.declared;
      state.revision = decided.revision;
      state.phase = 'ready';
      ready$.next(decided.upstream);
    },
    markInitialized: () => {
      const state = fields();
      if (state.phase !== 'ready' || state.initialized) return false;
      state.initialized = true;
      initialized$.next();
      return true;
    },
    setLogLevel: (level) => {
      fields().logLevel = level;
    },
    listFetched: (lists) => {
      fields().listsFetched |= lists;
    },
    acknowledgeListen: () => listenAcknowledged$.next(),
    beginClosing: () => {
      fields().phase = 'closing';
    },
  };
}
