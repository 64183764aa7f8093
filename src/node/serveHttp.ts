/**
 * The HTTP front end as a library call (docs/serve.md#serve-library): a Streamable HTTP endpoint
 * of revision 2025-11-25 whose sessions share one upstream (docs/serve.md#serve-sessions). Each
 * session is one subscription of the profile's bridge; the upstream (a child started once, or
 * one HTTP connection with one sign-in) is connected at the first `initialize` and closed only
 * when the server closes. Node only.
 */
import type { Observable } from 'rxjs';
import { DEFAULT_LIMITS } from '../bridge/config.js';
import type { BridgeDeps } from '../bridge/config.js';
import { fallbackServerName } from '../codec/initializeResult.js';
import { startHttpFront } from '../edges/httpFront/server.js';
import type { ModernLeg } from '../edges/httpFront/server.js';
import { isLoopback } from '../edges/httpFront/rules.js';
import type { FlowControl } from '../edges/flowControl.js';
import type { UpstreamConnection } from '../ports/upstream.js';
import { createRoutedProfileBridge } from '../profiles/bridge.js';
import type { Profile } from '../profiles/profile.js';
import { DEFAULT_MAX_DEPTH } from '../protocol/parseLine.js';
import { composeRouted } from './composeRouted.js';
import { ajvInputChecks } from './inputChecks.js';
import { createStderrLogger } from './log.js';
import { DEFAULT_MAX_BYTES, packageVersion } from './bridgeOptions.js';
import type { BridgeProcessOptions } from './bridgeOptions.js';
import { sharedUpstream } from './sharedUpstream.js';
import { flushMetrics, loadMetrics } from './metrics.js';
import { flushTracing, loadTracing } from './telemetry.js';
import { fanOutSignIn, fanOutTelemetry } from './telemetryFanout.js';
import { createUpstreamConnector } from './upstreamConnector.js';
import type { StdioUpstream } from './upstreamConnector.js';

/**
 * Settings of serveHttp: those of the bridge (BridgeProcessOptions; `limits.maxInFlight` is per
 * session) and of the HTTP front end, every limit with a default (docs/serve.md#serve-limits).
 */
export interface ServeHttpOptions extends BridgeProcessOptions {
  /** Address to bind. Default 127.0.0.1; another than loopback needs `token`. */
  readonly host?: string;
  /** Port to bind; 0 (the default) takes a free one. */
  readonly port?: number;
  /** Browser origins that may call the server (CORS). Default none. */
  readonly allowOrigins?: readonly string[];
  /** The bearer token every request must carry. Default none (loopback only). */
  readonly token?: string;
  /** Most sessions at once. Default 100. */
  readonly maxSessions?: number;
  /** Most requests waiting for their response in all sessions together. Default 1024. */
  readonly maxPending?: number;
  /** A session without requests and open streams ends after this. Default 30 minutes. */
  readonly sessionIdleMs?: number;
  /** Largest POST body. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** Keep-alive comments of event streams. Default 15 s. */
  readonly keepAliveMs?: number;
  /** Frames kept per session while it has no GET stream. Default 256. */
  readonly maxBufferedFrames?: number;
  /** Time for a request's headers and body to arrive; then 408 and the connection closes. Default 30 s. */
  readonly bodyTimeoutMs?: number;
  /** Open connections at once; a new one beyond is closed at once. Default 2 × maxSessions + maxPending. */
  readonly maxConnections?: number;
  /** Bytes of output a session's client may leave unread; beyond, the session ends. Default 16 MiB. */
  readonly maxSessionBufferBytes?: number;
  /** `GET /metrics` in the Prometheus text format, token rules as for `/mcp` (docs/observability.md#observability-metrics). Default off. */
  readonly metrics?: boolean;
}

/** A running server. */
export interface HttpServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Sessions open now. */
  readonly sessions: () => number;
  /** Ends the sessions, closes the server, then stops the upstream. */
  close(): Promise<void>;
}

/** The default time for a request to arrive (ServeHttpOptions.bodyTimeoutMs). */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** The default bound of a session's unread output (ServeHttpOptions.maxSessionBufferBytes). */
export const DEFAULT_MAX_SESSION_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * docs/serve.md#serve-limits: by default every session may hold its GET stream and one more
 * connection (an idle keep-alive socket, a DELETE), and every request in flight its own POST.
 */
export const defaultMaxConnections = (maxSessions: number, maxPending: number): number =>
  2 * maxSessions + maxPending;

/** The default largest POST body (ServeHttpOptions.maxBodyBytes). */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** No back-pressure across sessions: each response stream is written as it comes. */
const NO_FLOW: FlowControl = { check: () => undefined, add: () => () => undefined, paused: false };

/**
 * The upstream of a front end: how to connect it (shared by every session), how to wait for it
 * after the server closed, and its name for the fallback `serverInfo.name`.
 */
export interface UpstreamLink {
  readonly connect: () => Observable<UpstreamConnection>;
  /** After the shared connection closed: waits for a child to exit. */
  readonly settle: () => Promise<void>;
  readonly fallback: { readonly command: string } | { readonly url: string } | Record<string, never>;
}

/**
 * Serves MCP 2025-11-25 clients over Streamable HTTP from one 2026-07-28 upstream and resolves
 * once the server listens (docs/serve.md#serve-library). The caller stops it with `close()`.
 *
 * @example
 * import { genericProfile } from 'mcp-bridge-sdk';
 * import { serveHttp } from 'mcp-bridge-sdk/node';
 * const server = await serveHttp(genericProfile, { kind: 'command', argv: ['node', 'server.js'] });
 * console.error(server.url); // http://127.0.0.1:<port>/mcp
 */
export async function serveHttp(
  profile: Profile,
  upstream: StdioUpstream,
  options: ServeHttpOptions = {},
): Promise<HttpServer> {
  checkListen(options);
  const logger = options.logger ?? createStderrLogger('info', undefined, profile.name);
  const connector = createUpstreamConnector({
    upstream,
    logger,
    flow: NO_FLOW,
    maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_BYTES,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_BYTES,
    env: options.env ?? process.env,
    auth: options.signIn?.auth,
  });
  return serveHttpOn(
    profile,
    {
      connect: connector.connect,
      settle: () => connector.settle(false),
      fallback: upstream.kind === 'command' ? { command: upstream.argv[0] ?? '' } : { url: upstream.url },
    },
    { ...options, logger },
  );
}

/** docs/serve.md#serve-security: beyond loopback, only with a secret. */
function checkListen(options: ServeHttpOptions): void {
  if (!isLoopback(options.host ?? '127.0.0.1') && (options.token === undefined || options.token === '')) {
    throw new RangeError('serveHttp: a listen address other than loopback needs a token');
  }
}

/** serveHttp on any upstream link, with an optional second leg (embedded mode, docs/embedded.md#embedded-http). */
export async function serveHttpOn(
  profile: Profile,
  link: UpstreamLink,
  options: ServeHttpOptions,
  modern?: ModernLeg,
): Promise<HttpServer> {
  checkListen(options);
  const logger = options.logger ?? createStderrLogger('info', undefined, profile.name);
  const shared = sharedUpstream(link.connect, logger);
  const signIn = options.signIn;
  const version = options.version ?? packageVersion();
  // docs/observability.md#observability-switch: undefined (and nothing loaded) unless the environment turns tracing on.
  const tracing = await loadTracing(process.env, logger, version);
  // docs/observability.md#observability-metrics: undefined (and nothing loaded) unless OTEL_METRICS_EXPORTER or `metrics` turns them on.
  const metrics = await loadMetrics(process.env, logger, version, options.metrics === true);
  const sessionMetrics = metrics?.forConnection({ transport: 'tcp' });
  const telemetry = fanOutTelemetry(tracing?.forConnection({ transport: 'tcp' }), sessionMetrics);
  const stopTelemetry = async (): Promise<void> => {
    await Promise.all([
      tracing === undefined ? undefined : flushTracing(tracing),
      metrics === undefined ? undefined : flushMetrics(metrics),
    ]);
  };
  // docs/observability.md#observability-sign-in: the sign-in's spans and counters, when on.
  const signInTelemetry = fanOutSignIn(tracing?.signIn, metrics?.signIn);
  if (signInTelemetry !== undefined) signIn?.auth.observe?.(signInTelemetry);
  // Frames with their origin (RoutedFrame): the session sends those of a request on its stream.
  const bridgeConfig = {
    version,
    fallbackName: fallbackServerName({
      ...(options.name === undefined ? {} : { name: options.name }),
      ...link.fallback,
      profileName: profile.name,
    }),
    limits: { ...DEFAULT_LIMITS, ...options.limits },
  };
  const bridgeDeps: BridgeDeps = {
    connect: shared.connect,
    logger,
    checks: options.checks ?? ajvInputChecks,
    ...(signIn === undefined ? {} : { consent: signIn.consent, signIn$: signIn.auth.signedIn$ }),
    ...(telemetry === undefined ? {} : { telemetry }),
  };
  const bridge = composeRouted(createRoutedProfileBridge(profile, bridgeConfig, bridgeDeps), options.compose);
  // docs/observability.md#observability-session: with tracing on, each session gets a bridge of
  // its own whose spans carry its session (only a hash of the id: the id is a capability).
  const sessionBridge =
    tracing === undefined
      ? undefined
      : (sessionId: string) => {
          const own = fanOutTelemetry(tracing.forConnection({ transport: 'tcp', sessionId }), sessionMetrics);
          const deps = own === undefined ? bridgeDeps : { ...bridgeDeps, telemetry: own };
          return composeRouted(createRoutedProfileBridge(profile, bridgeConfig, deps), options.compose);
        };
  const maxSessions = options.maxSessions ?? 100;
  const maxPending = options.maxPending ?? 1024;
  // A server that cannot listen stops the tracing it started, so no exporter keeps the process alive.
  const front = await startHttpFront({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    allowOrigins: options.allowOrigins ?? [],
    ...(options.token === undefined ? {} : { token: options.token }),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    maxSessions,
    maxPending,
    sessionIdleMs: options.sessionIdleMs ?? 30 * 60_000,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    maxBufferedFrames: options.maxBufferedFrames ?? 256,
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    maxConnections: options.maxConnections ?? defaultMaxConnections(maxSessions, maxPending),
    maxSessionBufferBytes: options.maxSessionBufferBytes ?? DEFAULT_MAX_SESSION_BUFFER_BYTES,
    maxDepth: DEFAULT_MAX_DEPTH,
    bridge,
    ...(sessionBridge === undefined ? {} : { sessionBridge }),
    logger,
    // docs/serve.md#serve-health: GET /healthz answers with the shared upstream's state.
    health: shared.state,
    ...(metrics?.scrape === undefined || options.metrics !== true ? {} : { metrics: metrics.scrape }),
    ...(metrics === undefined ? {} : { refused: metrics.refused }),
    ...(modern === undefined ? {} : { modern }),
  }).catch(async (error: unknown) => {
    await stopTelemetry();
    throw error;
  });
  let closing: Promise<void> | undefined;
  return {
    url: front.url,
    port: front.port,
    sessions: front.sessions,
    close: () =>
      (closing ??= (async () => {
        await front.close();
        shared.close();
        await link.settle();
        await stopTelemetry();
      })()),
  };
}
