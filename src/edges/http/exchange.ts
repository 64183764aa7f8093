/**
 * The exchanges of an HTTP upstream, one per request (docs/http-upstream.md#http-endpoint): one POST with a
 * new id, its JSON or SSE answer read up to the response, a failure as a BridgeError. Unsubscribing
 * aborts the POST, which is the cancellation on HTTP (docs/http-upstream.md#http-cancellation); a lost stream loses only its
 * request and is never sent again here (docs/http-upstream.md#http-stream-loss). The debug line of each exchange is
 * docs/logging.md#logging-debug-lines. This runs for every call: no operator chain per call.
 */
import { Observable, defer, mergeMap, throwError } from 'rxjs';
import type { Dispatcher } from 'undici';
import type { Logger } from '../../ports/logger.js';
import type { UpstreamAuth } from '../../ports/signIn.js';
import type { ExchangeEvent, ExchangeOptions } from '../../ports/upstream.js';
import { tookExchangeLog } from '../../ports/upstream.js';
import { BridgeError, isBridgeError } from '../../protocol/bridgeError.js';
import type { Frame, JsonObject } from '../../protocol/jsonrpc.js';
import { isObject, request as requestFrame } from '../../protocol/jsonrpc.js';
import type { BodyGate } from '../bodyGate.js';
import { canceller } from './canceller.js';
import type { Canceller } from './canceller.js';
import { connectFailure } from './connectFailure.js';
import { NO_TIMEOUTS } from './dispatcher.js';
import type { DispatcherResult } from './dispatcher.js';
import type { StaticHeader } from './headers.js';
import { requestHeaders } from './headers.js';
import { responseMessages } from './response.js';
import { withSignIn } from './signInRetry.js';
import { errorCode } from './sse.js';
import { traceContextOf } from './traceHeaders.js';
import type { ToolHeaderCache } from './toolHeaders.js';

/** What the exchanges share, made once per connection (httpUpstream.ts). */
export interface ExchangeContext {
  readonly origin: string;
  /** Path and query of the endpoint; never logged (it may hold a key). */
  readonly path: string;
  /** The HTTP client, or why there is none: then every exchange fails with `connect_failed`. */
  readonly made: DispatcherResult;
  readonly staticHeaders: readonly StaticHeader[];
  readonly protocolVersion: string;
  readonly maxResponseBytes: number;
  /** The body gate of the connection (bodyGate.ts): its bodies are not read while it is paused. */
  readonly bodies: BodyGate;
  readonly auth: UpstreamAuth | undefined;
  /** Hidden tools fail before a POST; a `tools/call` gets the headers of its tool's arguments. */
  readonly tools: ToolHeaderCache;
  /**
   * Routes one message of a response: the event for the exchange, or undefined when the message
   * goes nowhere in it. A throw fails the exchange.
   */
  readonly route: (frame: Frame, method: string) => ExchangeEvent | undefined;
  readonly logger: Logger;
  readonly scope: string;
}

/** The exchanges of one connection, and their end. */
export interface Exchanges {
  readonly send: (method: string, params: JsonObject, options: ExchangeOptions) => Observable<ExchangeEvent>;
  /** True after close(). */
  readonly closed: boolean;
  /** Aborts every exchange in flight; later ones fail with `closed`. */
  close(): void;
}

const describeId = (id: string | number | undefined): string =>
  id === undefined
    ? 'no client request'
    : `client request ${typeof id === 'string' ? JSON.stringify(id) : id}`;

/** One exchange while it runs: what its POST, its events and its debug line share. */
interface Running {
  readonly method: string;
  readonly controller: Canceller;
  readonly started: number;
  /** The id of the last POST (a retry after a sign-in posts again with a new id). */
  id: number;
  status: number | undefined;
  /** For the debug line: `response`, `error response`, `failed (<code>)`, else `cancelled`. */
  outcome: string;
  answered: boolean;
}

/**
 * The headers of a `tools/call` from its tool's arguments, or the failure of a hidden tool
 * (docs/http-upstream.md#http-endpoint); none for other methods.
 */
function toolHeaders(
  tools: ToolHeaderCache,
  method: string,
  params: JsonObject,
): Array<readonly [string, string]> | BridgeError {
  const toolName = method === 'tools/call' ? params['name'] : undefined;
  if (typeof toolName !== 'string') return [];
  const reason = tools.invalidReason(toolName);
  if (reason !== undefined)
    return new BridgeError('invalid_params', { detail: `the tool is hidden: ${reason}` });
  return tools.headersFor(toolName, params['arguments']);
}

/** The debug line of an ended exchange (docs/logging.md#logging-debug-lines). */
function logEnd(context: ExchangeContext, running: Running, options: ExchangeOptions): void {
  const { logger, scope } = context;
  if (!logger.enabled('debug')) return;
  const ms = Math.round(performance.now() - running.started);
  const http = running.status === undefined ? '' : ` (HTTP status ${running.status})`;
  const round = options.trace?.round ?? 1;
  logger.log(
    scope,
    'debug',
    `upstream request ${running.id} (${running.method}, round ${round} of ${describeId(options.trace?.clientId)}): ` +
      `${running.outcome} after ${ms} ms${http}`,
  );
}

/** What the exchanges of one connection share while it is open. */
interface Connection {
  readonly context: ExchangeContext;
  readonly inFlight: Set<Canceller>;
  nextId: number;
  closed: boolean;
}

const closedError = () =>
  new BridgeError('closed', { detail: 'the bridge closed the connection to the upstream server' });

/** The stream error of a failed exchange: always a BridgeError. */
function failureOf(
  connection: Connection,
  error: unknown,
  method: string,
  status: number | undefined,
): BridgeError {
  if (connection.closed) return closedError();
  if (isBridgeError(error)) return error;
  if (status === undefined) return connectFailure(error, method);
  return new BridgeError('closed', {
    detail: `${method}: the response stream broke (${errorCode(error)})`,
    httpStatus: status,
  });
}

/**
 * The events of one exchange for `subscriber`, from the messages of its POST. One subscriber for
 * the whole exchange rather than a chain of operators: this runs for every call. The response
 * ends the exchange; a stream that ends without one fails it
 * (docs/http-upstream.md#http-stream-loss); every failure is a BridgeError (failureOf).
 */
function exchangeEvents(
  connection: Connection,
  running: Running,
  messages$: Observable<Frame>,
  options: ExchangeOptions,
): Observable<ExchangeEvent> {
  const { route } = connection.context;
  return new Observable<ExchangeEvent>((subscriber) => {
    const { method } = running;
    const fail = (error: unknown) => {
      const failure = failureOf(connection, error, method, running.status);
      running.outcome = `failed (${failure.code})`;
      subscriber.error(failure);
    };
    const messages = messages$.subscribe({
      next: (frame) => {
        if (running.answered) return;
        let event: ExchangeEvent | undefined;
        try {
          event = route(frame, method);
        } catch (error) {
          fail(error);
          return;
        }
        if (event === undefined) return;
        if (event.type !== 'response') {
          // A log message goes to the connection that made the exchange, when it said where
          // (ExchangeOptions.logs, docs/serve.md#serve-routing).
          if (!tookExchangeLog(options, event.frame)) subscriber.next(event);
          return;
        }
        running.answered = true;
        running.outcome = 'error' in event.frame ? 'error response' : 'response';
        subscriber.next(event);
        subscriber.complete();
      },
      error: fail,
      complete: () => {
        if (running.answered) return;
        fail(
          new BridgeError('closed', {
            detail: `${method}: the response stream ended before the response`,
            ...(running.status === undefined ? {} : { httpStatus: running.status }),
          }),
        );
      },
    });
    return () => {
      // The rest of a stream after its response is not read: this teardown destroys the body (sse.ts).
      messages.unsubscribe();
      connection.inFlight.delete(running.controller);
      // Cancels a POST still under way (docs/http-upstream.md#http-cancellation). Once the response is read the body has ended
      // or its teardown destroyed it (sse.ts), which already closed the stream: an abort then
      // only costs a DOMException with its stack, on every call.
      if (!running.answered) running.controller.abort();
      logEnd(connection.context, running, options);
    };
  });
}

/** The messages of one exchange: its POST, again after a sign-in (docs/sign-in.md#sign-in-trigger). */
function exchangeMessages(
  connection: Connection,
  dispatcher: Dispatcher,
  running: Running,
  params: JsonObject,
  options: ExchangeOptions,
): Observable<Frame> | BridgeError {
  const { context } = connection;
  const { origin, path, staticHeaders, protocolVersion, maxResponseBytes, bodies, tools } = context;
  const { method, controller } = running;
  const paramHeaders = toolHeaders(tools, method, params);
  if (paramHeaders instanceof BridgeError) return paramHeaders;
  const meta = isObject(params['_meta']) ? params['_meta'] : {};
  const headers = requestHeaders({ method, params, protocolVersion, paramHeaders, staticHeaders });
  // One POST; the retry after a sign-in is a new request with a new id.
  const post = (authorization: Record<string, string>) =>
    defer(() => {
      running.id = connection.nextId++;
      const body = JSON.stringify(
        requestFrame(running.id, method, { ...params, _meta: { ...meta, progressToken: running.id } }),
      );
      return dispatcher.request({
        origin,
        path,
        method: 'POST',
        // No copy of the headers without a sign-in header (this runs for every call).
        headers: Object.keys(authorization).length === 0 ? headers : { ...headers, ...authorization },
        body,
        signal: controller.signal,
        ...NO_TIMEOUTS,
      });
    });
  const signIn = {
    auth: context.auth,
    method,
    get signal() {
      return controller.abortSignal;
    },
    consent: options.consent,
    get trace() {
      return traceContextOf(params);
    },
  };
  return withSignIn(post, signIn).pipe(
    mergeMap((response) => {
      running.status = response.statusCode;
      return responseMessages(response, { id: running.id, method, maxResponseBytes, bodies });
    }),
  );
}

export function createExchanges(context: ExchangeContext): Exchanges {
  const { made } = context;
  const dispatcher = made.ok ? made.dispatcher : undefined;
  const connection: Connection = { context, inFlight: new Set<Canceller>(), nextId: 1, closed: false };

  const send = (method: string, params: JsonObject, options: ExchangeOptions): Observable<ExchangeEvent> =>
    defer(() => {
      if (connection.closed) return throwError(closedError);
      if (dispatcher === undefined) {
        return throwError(() => new BridgeError('connect_failed', made.ok ? {} : { detail: made.reason }));
      }
      const running: Running = {
        method,
        controller: canceller(),
        started: performance.now(),
        id: 0,
        status: undefined,
        outcome: 'cancelled',
        answered: false,
      };
      const messages$ = exchangeMessages(connection, dispatcher, running, params, options);
      if (messages$ instanceof BridgeError) return throwError(() => messages$);
      connection.inFlight.add(running.controller);
      return exchangeEvents(connection, running, messages$, options);
    });

  return {
    send,
    get closed() {
      return connection.closed;
    },
    close() {
      if (connection.closed) return;
      connection.closed = true;
      for (const controller of connection.inFlight) controller.abort();
      connection.inFlight.clear();
    },
  };
}
