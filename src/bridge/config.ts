/**
 * Settings of one bridge connection, with the reference defaults (docs/requests.md#requests-deadlines).
 */
import type { Telemetry } from '../ports/telemetry.js';
import type { SchedulerLike } from 'rxjs';
import { DEFAULT_FORWARD_REQUEST_CONFIG } from '../../operators/forwardRequest.js';
import type { ForwardRequestConfig } from '../../operators/forwardRequest.js';
import { DEFAULT_LIMIT_IN_FLIGHT_CONFIG } from '../../operators/limitInFlight.js';
import { DEFAULT_REOPEN_LISTEN_CONFIG } from '../../operators/reopenListen.js';
import type { Observable } from 'rxjs';
import type { InputSchemaChecks } from '../codec/input/checks.js';
import type { MetaPassthrough } from '../protocol/metaPassthrough.js';
import type { shapeResult } from '../codec/results.js';
import type { ConsentRelay } from '../ports/signIn.js';
import type { Logger } from '../ports/logger.js';
import type { UpstreamConnection } from '../ports/upstream.js';

/** The limits and time limits of one bridge connection (docs/requests.md#requests-in-flight, docs/requests.md#requests-deadlines, docs/notifications.md#notifications-reconnect). */
export interface BridgeLimits extends Omit<ForwardRequestConfig, 'scheduler'> {
  /** Most client requests in flight (docs/requests.md#requests-in-flight). */
  readonly maxInFlight: number;
  /** Limit of `server/discover`, in ms (`--discover-timeout`). */
  readonly discoverTimeoutMs: number;
  /** After the end of input, how long running work may go on before it is cut, in ms. */
  readonly shutdownGraceMs: number;
  /** Listen stream backoff (docs/notifications.md#notifications-reconnect), in ms. */
  readonly listenBackoffMs: number;
  readonly listenMaxBackoffMs: number;
  readonly listenResetAfterMs: number;
  /**
   * How long a list request that reaches the bridge before the first acknowledgment of the
   * listen stream waits for it, in ms (docs/notifications.md#notifications-first-list).
   */
  readonly firstAckWaitMs: number;
}

/**
 * The reference defaults of BridgeLimits. Each default that an operator has is taken from its
 * operator, so it is written once: a forwarded request's (its limits per method, rounds,
 * slow-request lines) from forwardRequest, the in-flight limit from limitInFlight, the listen
 * backoff from reopenListen.
 */
export const DEFAULT_LIMITS: BridgeLimits = Object.freeze({
  ...DEFAULT_FORWARD_REQUEST_CONFIG,
  maxInFlight: DEFAULT_LIMIT_IN_FLIGHT_CONFIG.maxInFlight,
  discoverTimeoutMs: 60_000,
  shutdownGraceMs: 2_000,
  listenBackoffMs: DEFAULT_REOPEN_LISTEN_CONFIG.initialMs,
  listenMaxBackoffMs: DEFAULT_REOPEN_LISTEN_CONFIG.maxMs,
  listenResetAfterMs: DEFAULT_REOPEN_LISTEN_CONFIG.resetAfterMs,
  firstAckWaitMs: 2_000,
});

/** The fixed settings of a bridge: its version, fallback name and limits. */
export interface BridgeConfig {
  /** Version of the bridge, the fallback `serverInfo.version`. */
  readonly version: string;
  /** `serverInfo.name` when the upstream gives none (`--name`, command basename, URL host, profile). */
  readonly fallbackName: string;
  readonly limits: BridgeLimits;
  /**
   * What of the client travels upstream in `_meta`: its own `_meta` keys, its full `clientInfo`,
   * `roots.listChanged` (a profile's `metaPassthrough`). Default: REFERENCE_PASSTHROUGH, the rule of
   * the VS Code profile.
   */
  readonly metaPassthrough?: MetaPassthrough;
}

/** What the bridge is given: how to reach the upstream, where to log, and the seams for tests. */
export interface BridgeDeps {
  /**
   * Starts (or reaches) the upstream for one `initialize` attempt. Emits the connection once;
   * errors with a BridgeError (`spawn_failed`, `connect_failed`).
   */
  readonly connect: () => Observable<UpstreamConnection>;
  readonly logger: Logger;
  /** Virtual time in tests. */
  readonly scheduler?: SchedulerLike;
  /**
   * The step that shapes each complete forwarded result for the client: `shapeResult` of
   * src/codec/results.ts by default. Stable, with one use in the product: `createProfileBridge`
   * puts a profile's quirks here (`profileShapeResult`, src/profiles/bridge.ts,
   * docs/architecture.md#architecture-profile). A replacement calls `shapeResult` and changes
   * what it returns; it gets the same options object for every result of a connection. A throw
   * fails that request alone (-32603), never the connection (test/bridge/isolation.test.ts).
   */
  readonly shapeResult?: typeof shapeResult;
  /**
   * The sign-in's relay to the client (HTTP upstreams with a sign-in): each connection binds its
   * consent port to it, for the URL elicitations after `notifications/initialized` (docs/sign-in.md#sign-in-consent).
   */
  readonly consent?: ConsentRelay;
  /** Emits after each completed sign-in: a listen stream refused with 401/403 opens again (docs/http-upstream.md#http-listen-stream). */
  readonly signIn$?: Observable<unknown>;
  /**
   * The JSON Schema checks of input rounds (the 2025-11-25 definitions, a form's
   * `requestedSchema`): `ajvInputChecks` of `mcp-bridge-sdk/node` (ajv, loaded on first use), or
   * checks of one's own. Passed in, so that this entry loads neither ajv nor the schema (README
   * "Use the library"). Absent: a result that says `input_required` fails its request with
   * `internal`, nothing is sent to the client, and the log says that the bridge has no input checks.
   */
  readonly checks?: InputSchemaChecks;
  /**
   * The spans of this connection's requests, rounds and input requests (docs/observability.md):
   * made by `mcp-bridge-sdk/node` when the OpenTelemetry environment turns tracing on. Absent:
   * nothing is called.
   */
  readonly telemetry?: Telemetry;
}
