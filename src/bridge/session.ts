/**
 * The state of one client connection (protocol-mapping.md §0.1). It lives inside the `defer` of
 * createBridge, one per subscription, never shared.
 */
import { ReplaySubject, Subject } from 'rxjs';
import type { ClientAnswer } from '../../operators/driveInputRounds.js';
import type { ErrorObject, JsonObject, RequestId } from '../protocol/jsonrpc.js';
import type { DeclaredLists } from '../codec/listen.js';
import type { UpstreamConnection } from './upstream.js';

export type Phase = 'awaiting_initialize' | 'initializing' | 'ready' | 'closing';

export interface Abort {
  readonly reason: string;
  /** The response of requests stopped this way; none for a client cancel or the end of input. */
  readonly error?: ErrorObject;
}

export interface ClientContext {
  readonly info: JsonObject;
  /** As declared in `initialize` (2025-11-25 shape): decides which input kinds may be asked. */
  readonly capabilities: JsonObject;
  /** Translated for the upstream `_meta` (reference-behaviors.md §3.2). */
  readonly upstreamCapabilities: JsonObject;
}

export interface Session {
  phase: Phase;
  client: ClientContext | undefined;
  upstream: UpstreamConnection | undefined;
  declared: DeclaredLists | undefined;
  /** Level of `logging/setLevel`, stamped on later upstream requests (§5.7). */
  logLevel: string | undefined;
  /** `notifications/initialized` arrived after the initialize result (§2.5). */
  initialized: boolean;
  /** Requests running as tasks (forwarded, initialize, subscriptions). */
  tasks: number;
  /** Per-connection counters of `b-N` and `elicitation-N` (§11 item 17). */
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
  /** A task ended (for the stop after an upstream loss). */
  readonly taskEnded$: Subject<void>;
}

export function createSession(): Session {
  let bridgeIds = 0;
  let elicitationIds = 0;
  return {
    phase: 'awaiting_initialize',
    client: undefined,
    upstream: undefined,
    declared: undefined,
    logLevel: undefined,
    initialized: false,
    tasks: 0,
    nextBridgeId: () => `b-${++bridgeIds}`,
    nextElicitationId: () => `elicitation-${++elicitationIds}`,
    answers$: new Subject(),
    cancels$: new Subject(),
    abortAll$: new ReplaySubject(1),
    ready$: new ReplaySubject(1),
    initialized$: new ReplaySubject(1),
    taskEnded$: new Subject(),
  };
}

/** The JSON-RPC error for a failure thrown inside a request's pipeline. */
export { errorOfThrown as toErrorObject } from '../codec/input/index.js';
