/**
 * The client edge of the Streamable HTTP transport, revision 2026-07-28 (protocol-mapping.md §7.1):
 * one POST per request, JSON or SSE responses, no sessions. Unsubscribing from an exchange aborts
 * its POST, which is the cancellation on HTTP (§7.1.7); a lost stream loses only its request and
 * is never sent again here (§7.1.8).
 */
import { EventEmitter } from 'node:events';
import { NEVER, Observable, Subject, defer, mergeMap, throwError } from 'rxjs';
import type { Dispatcher } from 'undici';
import type { Logger } from '../../bridge/log.js';
import type { UpstreamAuth } from '../../bridge/signInPorts.js';
import type { ExchangeEvent, ExchangeOptions, UpstreamConnection } from '../../bridge/upstream.js';
import { BridgeError, isBridgeError } from '../../errors.js';
import type { Frame, JsonObject, NotificationFrame } from '../../protocol/jsonrpc.js';
import { isObject, isRequest, isResponse, request as requestFrame } from '../../protocol/jsonrpc.js';
import { NO_TIMEOUTS, createDispatcher } from './dispatcher.js';
import type { DispatcherResult, ProxyEnv } from './dispatcher.js';
import type { StaticHeader } from './headers.js';
import { requestHeaders } from './headers.js';
import { responseMessages } from './response.js';
import { connectFailure } from './connectFailure.js';
import { errorCode } from './sse.js';
import { createToolHeaderCache } from './toolHeaders.js';
import { createToolCalls } from './toolList.js';
import { withSignIn } from './signInRetry.js';

export type { StaticHeader } from './headers.js';
export type { ProxyEnv } from './dispatcher.js';

/** Settings of an HTTP upstream. */
export interface HttpUpstreamConfig {
  /** The MCP endpoint; checked by the CLI (reference-behaviors.md §6.1). Never logged. */
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
   * The sign-in (issue #11): its Authorization header goes on every POST, and a 401/403 is handed
   * to it once per request. Never together with a static `authorization` header: that is a
   * configuration error (reference-behaviors.md §6.3), and every request fails with `connect_failed`.
   */
  readonly auth?: UpstreamAuth;
}

export const DEFAULT_HTTP_UPSTREAM_CONFIG = Object.freeze({
  maxResponseBytes: 64 * 1024 * 1024,
  protocolVersion: '2026-07-28',
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
   * (protocol-mapping.md §7.1.4, toolList.ts).
   */
  knowsTool(name: string): boolean;
}

const SCOPE = 'mcp_http';

/**
 * What cancels one exchange. Its POSTs get a bare emitter as their signal (undici takes an
 * EventEmitter or an AbortSignal; `aborted` makes a POST started after the abort fail at once).
 * The AbortSignal exists only when a sign-in challenge asks for it: an AbortSignal is an
 * EventTarget, and making one per call showed in the profile of the cheap path (issue 13).
 */
interface Canceller {
  readonly signal: EventEmitter & { aborted: boolean };
  /** Made on first use; aborted with the exchange. */
  readonly abortSignal: AbortSignal;
  abort(): void;
}

function canceller(): Canceller {
  const signal = Object.assign(new EventEmitter(), { aborted: false });
  let controller: AbortController | undefined;
  return {
    signal,
    get abortSignal() {
      controller ??= new AbortController();
      if (signal.aborted) controller.abort();
      return controller.signal;
    },
    abort() {
      if (signal.aborted) return;
      signal.aborted = true;
      signal.emit('abort');
      controller?.abort();
    },
  };
}

const describeId = (id: string | number | undefined): string =>
  id === undefined
    ? 'no client request'
    : `client request ${typeof id === 'string' ? JSON.stringify(id) : id}`;

/**
 * Connects to a 2026-07-28 server over Streamable HTTP. Nothing is sent before the first request.
 * A proxy or trust setting that cannot work is logged once (`err`) and fails every request with
 * `connect_failed`.
 */
export function createHttpUpstream(config: HttpUpstreamConfig, logger: Logger): HttpUpstreamConnection {
  const url = typeof config.url === 'string' ? new URL(config.url) : config.url;
  const origin = url.origin;
  const path = `${url.pathname}${url.search}`;
  const maxResponseBytes = config.maxResponseBytes ?? DEFAULT_HTTP_UPSTREAM_CONFIG.maxResponseBytes;
  const protocolVersion = config.protocolVersion ?? DEFAULT_HTTP_UPSTREAM_CONFIG.protocolVersion;
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
  const logMessages = new Subject<NotificationFrame>();
  const inFlight = new Set<Canceller>();
  let nextId = 1;
  let closed = false;

  const closedError = () =>
    new BridgeError('closed', { detail: 'the bridge closed the connection to the upstream server' });

  /**
   * Routes one message of a response: the response (a `tools/list` result teaches the tool cache
   * and may lose hidden tools), request-scoped notifications to the exchange, logs to
   * notifications$; undefined when the message goes nowhere in the exchange.
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
    if (frame.method === 'notifications/message') {
      logMessages.next(frame);
      return undefined;
    }
    return { type: 'notification', frame };
  };

  /** The stream error of a failed exchange: always a BridgeError. */
  const failureOf = (error: unknown, method: string, status: number | undefined): BridgeError => {
    if (closed) return closedError();
    if (isBridgeError(error)) return error;
    if (status === undefined) return connectFailure(error, method);
    return new BridgeError('closed', {
      detail: `${method}: the response stream broke (${errorCode(error)})`,
      httpStatus: status,
    });
  };

  const exchange = (
    method: string,
    params: JsonObject,
    options: ExchangeOptions,
  ): Observable<ExchangeEvent> =>
    defer(() => {
      if (closed) return throwError(closedError);
      if (dispatcher === undefined) {
        return throwError(() => new BridgeError('connect_failed', made.ok ? {} : { detail: made.reason }));
      }
      let paramHeaders: Array<readonly [string, string]> = [];
      const toolName = method === 'tools/call' ? params['name'] : undefined;
      if (typeof toolName === 'string') {
        const reason = tools.invalidReason(toolName);
        if (reason !== undefined) {
          return throwError(
            () => new BridgeError('invalid_params', { detail: `the tool is hidden: ${reason}` }),
          );
        }
        paramHeaders = tools.headersFor(toolName, params['arguments']);
      }
      const meta = isObject(params['_meta']) ? params['_meta'] : {};
      const headers = requestHeaders({ method, params, protocolVersion, paramHeaders, staticHeaders });
      const controller = canceller();
      inFlight.add(controller);
      const started = performance.now();
      let id = 0;
      let status: number | undefined;
      let outcome = 'cancelled';
      let answered = false;

      // One POST; the retry after a sign-in is a new request with a new id (§6.4).
      const post = (authorization: Record<string, string>) =>
        defer(() => {
          id = nextId++;
          const body = JSON.stringify(
            requestFrame(id, method, { ...params, _meta: { ...meta, progressToken: id } }),
          );
          return dispatcher.request({
            origin,
            path,
            method: 'POST',
            // No copy of the headers without a sign-in header (issue 13: this runs for every call).
            headers: Object.keys(authorization).length === 0 ? headers : { ...headers, ...authorization },
            body,
            signal: controller.signal,
            ...NO_TIMEOUTS,
          });
        });

      // One subscriber for the whole exchange rather than a chain of operators: this runs for
      // every call (issue 13). The response ends the exchange; a stream that ends without one
      // fails it (§7.1.8); every failure is a BridgeError (failureOf).
      return new Observable<ExchangeEvent>((subscriber) => {
        const fail = (error: unknown) => {
          const failure = failureOf(error, method, status);
          outcome = `failed (${failure.code})`;
          subscriber.error(failure);
        };
        const signIn = {
          auth: config.auth,
          method,
          get signal() {
            return controller.abortSignal;
          },
        };
        const messages = withSignIn(post, signIn)
          .pipe(
            mergeMap((response) => {
              status = response.statusCode;
              return responseMessages(response, { id, method, maxResponseBytes });
            }),
          )
          .subscribe({
            next: (frame) => {
              if (answered) return;
              let event: ExchangeEvent | undefined;
              try {
                event = toEvent(frame, method);
              } catch (error) {
                fail(error);
                return;
              }
              if (event === undefined) return;
              if (event.type !== 'response') {
                subscriber.next(event);
                return;
              }
              answered = true;
              outcome = 'error' in event.frame ? 'error response' : 'response';
              subscriber.next(event);
              subscriber.complete();
            },
            error: fail,
            complete: () => {
              if (answered) return;
              fail(
                new BridgeError('closed', {
                  detail: `${method}: the response stream ended before the response`,
                  ...(status === undefined ? {} : { httpStatus: status }),
                }),
              );
            },
          });
        return () => {
          // The rest of a stream after its response is not read: this teardown destroys the body (sse.ts).
          messages.unsubscribe();
          inFlight.delete(controller);
          // Cancels a POST still under way (§7.1.7). Once the response is read the body has ended
          // or its teardown destroyed it (sse.ts), which already closed the stream: an abort then
          // only costs a DOMException with its stack, on every call.
          if (!answered) controller.abort();
          if (!logger.enabled('debug')) return;
          const ms = Math.round(performance.now() - started);
          const http = status === undefined ? '' : ` (HTTP status ${status})`;
          const round = options.trace?.round ?? 1;
          logger.log(
            SCOPE,
            'debug',
            `upstream request ${id} (${method}, round ${round} of ${describeId(options.trace?.clientId)}): ` +
              `${outcome} after ${ms} ms${http}`,
          );
        };
      });
    });

  // A call needs the current definition of its tool (protocol-mapping.md §7.1.4).
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
    notifications$: logMessages.asObservable(),
    exit$: NEVER,
    remote: true,
    invalidTools: () => tools.invalidTools(),
    knowsTool: (name) => tools.known(name),
    close() {
      if (closed) return;
      closed = true;
      for (const controller of inFlight) controller.abort();
      inFlight.clear();
      logMessages.complete();
      dispatcher?.destroy().catch(() => undefined);
    },
  };
}
