/**
 * The client edge of the Streamable HTTP transport, revision 2026-07-28 (docs/http-upstream.md#http-endpoint):
 * the connection to one endpoint, no sessions. It makes the HTTP client once (docs/http-upstream.md#http-client
 * ), routes the messages of each response (logs to notifications$, docs/notifications.md#notifications-log-levels), sends a `tools/call`
 * with its tool's current definition (docs/http-upstream.md#http-x-mcp-header, toolList.ts), and closes. One exchange per request,
 * with its POST, answer and cancellation, is exchange.ts.
 */
import { PROTOCOL_VERSION } from '../../codec/meta.js';
import { NEVER, Subject } from 'rxjs';
import type { Dispatcher } from 'undici';
import type { Logger } from '../../ports/logger.js';
import type { UpstreamAuth } from '../../ports/signIn.js';
import type { ExchangeEvent, UpstreamConnection } from '../../ports/upstream.js';
import type { Frame, NotificationFrame } from '../../protocol/jsonrpc.js';
import { isRequest, isResponse } from '../../protocol/jsonrpc.js';
import { createBodyGate } from '../bodyGate.js';
import type { FlowControl } from '../flowControl.js';
import { createDispatcher } from './dispatcher.js';
import type { DispatcherResult, ProxyEnv } from './dispatcher.js';
import type { StaticHeader } from './headers.js';
import { createExchanges } from './exchange.js';
import { createToolHeaderCache } from './toolHeaders.js';
import { createToolCalls } from './toolList.js';

export type { StaticHeader } from './headers.js';
export type { ProxyEnv } from './dispatcher.js';

/** Settings of an HTTP upstream. */
export interface HttpUpstreamConfig {
  /** The MCP endpoint; checked by the CLI (docs/http-upstream.md#http-url-rules). Never logged. */
  readonly url: string | URL;
  /** Static headers sent with every request; values are secrets and never logged. */
  readonly headers?: readonly StaticHeader[];
  /** Limit of one JSON body and of one SSE event. Default 64 MiB. */
  readonly maxResponseBytes?: number;
  /** Extra trusted CA certificates (PEM), added to the default ones. */
  readonly caPem?: string;
  /** The environment for the proxy settings (HTTPS_PROXY, ALL_PROXY, NO_PROXY and lowercase). */
  readonly env: ProxyEnv;
  /** Value of `MCP-Protocol-Version`. Default `2026-07-28`. */
  readonly protocolVersion?: string;
  /**
   * The sign-in: its Authorization header goes on every POST, and a 401/403 is handed
   * to it once per request. Never together with a static `authorization` header: that is a
   * configuration error (docs/http-upstream.md#http-client), and every request fails with `connect_failed`.
   */
  readonly auth?: UpstreamAuth;
  /**
   * The back-pressure of the client connection (createFlowControl): the response bodies of this
   * connection are not read while it pauses its inputs. Their gate is added to it here and
   * removed at close(). Absent: the bodies are read as fast as they come.
   */
  readonly flow?: FlowControl;
}

export const DEFAULT_HTTP_UPSTREAM_CONFIG = Object.freeze({
  maxResponseBytes: 64 * 1024 * 1024,
  protocolVersion: PROTOCOL_VERSION,
});

/** An HTTP upstream: an {@link UpstreamConnection} that also knows the tool definitions it saw. */
export interface HttpUpstreamConnection extends UpstreamConnection {
  /**
   * Tools hidden for invalid `x-mcp-header` annotations (name → reason), as learnt from the
   * `tools/list` results that passed through. Such tools are already removed from those results,
   * and a `tools/call` of one fails with `invalid_params` without reaching the server.
   */
  invalidTools(): Map<string, string>;
  /**
   * True when a `tools/list` result named the tool. A `tools/call` of an unknown tool lists every
   * page of tools first, and a call refused with -32020 lists them again and is sent once more
   * (docs/http-upstream.md#http-x-mcp-header, toolList.ts).
   */
  knowsTool(name: string): boolean;
}

const SCOPE = 'mcp_http';

/**
 * Connects to a 2026-07-28 server over Streamable HTTP. Nothing is sent before the first request.
 * A proxy or trust setting that cannot work is logged once (`err`) and fails every request with
 * `connect_failed`.
 */
export function createHttpUpstream(config: HttpUpstreamConfig, logger: Logger): HttpUpstreamConnection {
  const url = typeof config.url === 'string' ? new URL(config.url) : config.url;
  const staticHeaders = config.headers ?? [];
  const conflict =
    config.auth !== undefined &&
    staticHeaders.some((header) => header.name.toLowerCase() === 'authorization');
  const made: DispatcherResult = conflict
    ? { ok: false, reason: 'a static authorization header and a sign-in cannot be used together' }
    : createDispatcher(
        url,
        config.caPem === undefined ? { env: config.env } : { env: config.env, caPem: config.caPem },
      );
  if (!made.ok)
    logger.log(SCOPE, 'err', `cannot make the HTTP client for the upstream server: ${made.reason}`);
  const dispatcher: Dispatcher | undefined = made.ok ? made.dispatcher : undefined;
  const tools = createToolHeaderCache();
  // This connection's bodies pause with the inputs of its client connection (bodyGate.ts).
  const bodies = createBodyGate();
  const removeGate = config.flow?.add(bodies);
  // No notification of an HTTP upstream belongs to no exchange: this only completes at close.
  const unbound = new Subject<NotificationFrame>();

  /**
   * Routes one message of a response: the response (a `tools/list` result teaches the tool cache
   * and may lose hidden tools), notifications (progress, log messages) to the exchange; undefined
   * when the message goes nowhere in the exchange.
   */
  const toEvent = (frame: Frame, method: string): ExchangeEvent | undefined => {
    if (isResponse(frame)) {
      if (method !== 'tools/list' || !('result' in frame)) return { type: 'response', frame };
      const learnt = tools.learn(frame.result);
      for (const hidden of learnt.hidden) {
        logger.log(
          SCOPE,
          'warn',
          `the tool ${JSON.stringify(hidden.name)} of the upstream server is hidden: ${hidden.reason}`,
        );
      }
      return {
        type: 'response',
        frame: learnt.result === frame.result ? frame : { ...frame, result: learnt.result },
      };
    }
    if (isRequest(frame)) {
      if (logger.enabled('debug')) {
        logger.log(
          SCOPE,
          'debug',
          `dropped a request of the upstream server on a response stream (${frame.method})`,
        );
      }
      return undefined;
    }
    // A log message too stays with its exchange: it belongs to the request whose stream carried
    // it, and reaches that request's client only (docs/serve.md#serve-routing).
    return { type: 'notification', frame };
  };

  const exchanges = createExchanges({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    made,
    staticHeaders,
    protocolVersion: config.protocolVersion ?? DEFAULT_HTTP_UPSTREAM_CONFIG.protocolVersion,
    maxResponseBytes: config.maxResponseBytes ?? DEFAULT_HTTP_UPSTREAM_CONFIG.maxResponseBytes,
    bodies,
    auth: config.auth,
    tools,
    route: toEvent,
    logger,
    scope: SCOPE,
  });
  const exchange = exchanges.send;

  // A call needs the current definition of its tool (docs/http-upstream.md#http-x-mcp-header).
  const callTool = createToolCalls({
    send: exchange,
    knowsTool: (name) => tools.known(name),
    logger,
    scope: SCOPE,
  });

  return {
    request: (method, params, options = {}) =>
      method === 'tools/call' && dispatcher !== undefined
        ? callTool(params, options)
        : exchange(method, params, options),
    notifications$: unbound.asObservable(),
    exit$: NEVER,
    remote: true,
    invalidTools: () => tools.invalidTools(),
    knowsTool: (name) => tools.known(name),
    close() {
      if (exchanges.closed) return;
      exchanges.close();
      removeGate?.();
      unbound.complete();
      dispatcher?.destroy().catch(() => undefined);
    },
  };
}
