/**
 * The JSON-RPC client of a line-based upstream (stdio child): ids, correlation and
 * cancellation. Every upstream frame is dispatched synchronously in arrival order, so an event
 * the upstream wrote before a result reaches the client before that result
 * (reference-behaviors.md §5.8).
 */
import {
  Observable,
  ReplaySubject,
  Subject,
  catchError,
  endWith,
  ignoreElements,
  map,
  merge,
  of,
  race,
  share,
  switchMap,
  take,
  tap,
  timer,
} from 'rxjs';
import type { Unsubscribable } from 'rxjs';
import { shallowCopy } from '../codec/objects.js';
import { requestLine } from '../codec/requestText.js';
import { BridgeError, isBridgeError } from '../errors.js';
import type { Frame, JsonObject, NotificationFrame, RequestId } from '../protocol/jsonrpc.js';
import { isObject, isRequest, isResponse, notification, request } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';
import type { Logger } from './log.js';
import { createPendingTable } from './pendingTable.js';
import type { ExchangeEvent, ExchangeOptions, ExchangeSink, UpstreamConnection } from './upstream.js';
import { refusedButSupported, retryWarning, selfRetrying } from './versionRetry.js';

/** A line-based transport to an upstream (a child process or any stream of JSON-RPC lines). */
export interface LineTransport {
  /** Parsed upstream lines; completes when the upstream closes its stdout. */
  readonly inbound$: Observable<Inbound>;
  /** Queues one frame for the upstream's stdin. */
  send(frame: Frame): void;
  /**
   * Queues one line for the upstream's stdin: the JSON text of one frame and a newline. A
   * transport that writes text has it, so that requests go out as text made by requestLine
   * (src/codec/requestText.ts, issue 13); one that passes objects (in memory) does not.
   */
  sendLine?(line: string): void;
  /** Emits once when the upstream process is gone. */
  readonly exit$: Observable<{ readonly code: number | null; readonly signal: string | null }>;
  close(): void;
}

/** Settings of createRpcConnection. */
export interface RpcConnectionConfig {
  /** How long to wait for the exit of a process that closed its stdout before failing with `closed`. */
  readonly exitAfterCloseMs: number;
}

/** One exchange in flight; it is also the handle `exchange` returns (its unsubscribe cancels it). */
interface Pending extends Unsubscribable {
  /** The upstream id of the request; a new one when it is sent once more (versionRetry.ts). */
  id: number;
  readonly method: string;
  readonly params: JsonObject;
  readonly sink: ExchangeSink;
  /** Set by the handle's unsubscribe: the sink gets nothing more. */
  closed: boolean;
  /** For the debug line only (0 without it): no clock read and no text per request otherwise. */
  started: number;
  readonly options: ExchangeOptions;
  /** How many more times a `-32022` that offers 2026-07-28 sends the request again. */
  retries: number;
  /** ExchangeOptions.fresh, until the first send: a request sent once more is a copy. */
  fresh: boolean;
}

const traceText = (trace: ExchangeOptions['trace']): string =>
  trace === undefined
    ? 'round 1 of no client request'
    : `round ${trace.round} of ${trace.clientId === undefined ? 'no client request' : `client request ${trace.clientId}`}`;

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** The request an upstream notification belongs to: progress token, listen tag, or cancel target. */
function correlatedId(frame: NotificationFrame): RequestId | undefined {
  const params = frame.params;
  if (params === undefined) return undefined;
  if (frame.method === 'notifications/progress') return params['progressToken'] as RequestId | undefined;
  if (frame.method === 'notifications/cancelled') return params['requestId'] as RequestId | undefined;
  const meta = params['_meta'];
  return isObject(meta) ? (meta[SUBSCRIPTION_ID] as RequestId | undefined) : undefined;
}

/** The cause of a failure for a log line: its code and name (never a frame content). */
export function causeOf(error: unknown): string {
  if (isBridgeError(error)) return error.detail === undefined ? error.code : `${error.code}: ${error.detail}`;
  if (!(error instanceof Error)) return typeof error;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? `${error.name} ${code}` : error.name;
}

/** A 2026-07-28 JSON-RPC connection over a LineTransport: requests, their responses and the notifications of the upstream. */
export function createRpcConnection(
  transport: LineTransport,
  logger: Logger,
  config: RpcConnectionConfig = { exitAfterCloseMs: 250 },
): UpstreamConnection {
  const pending = createPendingTable<Pending>();
  const notifications = new Subject<NotificationFrame>();
  // Replayed: a request made after the exit must still see it.
  const exit$ = transport.exit$.pipe(
    take(1),
    share({
      connector: () => new ReplaySubject(1),
      resetOnError: false,
      resetOnComplete: false,
      resetOnRefCountZero: false,
    }),
  );
  let nextId = 1;
  let gone: BridgeError | undefined;
  /** Set by withVersionRetry: requests made from then on are sent once more after a -32022 offering 2026-07-28. */
  let retryLogger: Logger | undefined;

  const finish = (id: number, outcome: string): Pending | undefined => {
    const entry = pending.take(id);
    if (entry === undefined) return undefined;
    if (entry.started !== 0 && logger.enabled('debug')) {
      logger.log(
        'bridge',
        'debug',
        `upstream request ${id} (${entry.method}, ${traceText(entry.options.trace)}): ${outcome} after ${Date.now() - entry.started} ms`,
      );
    }
    return entry;
  };

  const failAll = (error: BridgeError): void => {
    gone ??= error;
    for (const id of pending.ids()) {
      const entry = finish(id, error.code);
      if (entry !== undefined && !entry.closed) entry.sink.error(error);
    }
  };

  const dispatch = (inbound: Inbound): void => {
    if (inbound.kind === 'bad') {
      // reference-behaviors.md §3.1: a frame the bridge cannot read fails the request it names.
      const id = inbound.id;
      const entry = typeof id === 'number' ? finish(id, `bad frame (${inbound.cause})`) : undefined;
      if (entry !== undefined) {
        if (!entry.closed) entry.sink.error(new BridgeError('invalid_response', { detail: entry.method }));
      } else
        logger.log(
          'bridge',
          'warn',
          `dropped a line of the upstream server that is not valid (${inbound.cause})`,
        );
      return;
    }
    if (inbound.kind !== 'frame') return;
    const frame = inbound.frame;
    if (isResponse(frame)) {
      const entry = typeof frame.id === 'number' ? finish(frame.id, 'response') : undefined;
      if (entry === undefined) {
        logger.log('bridge', 'debug', 'dropped a response of the upstream server that belongs to no request');
        return;
      }
      if (entry.retries > 0 && retryLogger !== undefined && refusedButSupported(frame)) {
        // versionRetry.ts, done here: the same warning, then the same request with a new id.
        entry.retries -= 1;
        retryLogger.log('bridge', 'warn', retryWarning(entry.method));
        send(entry);
        return;
      }
      if (!entry.closed) entry.sink.next({ type: 'response', frame });
      // The sink may have unsubscribed inside next (the request ended with this response).
      if (!entry.closed) entry.sink.complete();
      return;
    }
    if (isRequest(frame)) {
      // protocol-mapping.md §10.7 trap 35: a 2026-07-28 server never sends requests; never answer one.
      logger.log('bridge', 'warn', `ignored the request ${frame.method} of the upstream server`);
      return;
    }
    const target = correlatedId(frame);
    const entry = typeof target === 'number' ? pending.get(target) : undefined;
    if (entry !== undefined) {
      if (!entry.closed) entry.sink.next({ type: 'notification', frame });
    } else if (frame.method === 'notifications/message') notifications.next(frame);
    else if (logger.enabled('debug')) {
      logger.log(
        'bridge',
        'debug',
        `dropped the notification ${frame.method} of the upstream server: it belongs to no request`,
      );
    }
  };

  /** A bug on one upstream line drops that line (issue 10 item 2), never the connection. */
  const dispatchSafely = (inbound: Inbound): void => {
    try {
      dispatch(inbound);
    } catch (error: unknown) {
      logger.log(
        'bridge',
        'err',
        `dropped a line of the upstream server: the bridge failed on it (${causeOf(error)})`,
      );
    }
  };

  // Exit and the end of stdout both end the connection; a crashing child closes stdout just
  // before it exits, so a closed stdout waits briefly for the exit to report upstream_exited.
  const closed$ = race(
    exit$.pipe(map(() => new BridgeError('upstream_exited'))),
    timer(config.exitAfterCloseMs).pipe(map(() => new BridgeError('closed'))),
  );
  const lifecycle = merge(
    exit$.pipe(map(() => new BridgeError('upstream_exited'))),
    transport.inbound$.pipe(
      tap(dispatchSafely),
      ignoreElements(),
      endWith(undefined),
      catchError((error: unknown) => {
        // Issue 10 item 3: the log line keeps the original cause; the requests get transport_failed.
        logger.log('bridge', 'err', `reading the output of the upstream server failed (${causeOf(error)})`);
        return of(new BridgeError('transport_failed', { cause: error }));
      }),
      switchMap((failure) => (failure === undefined ? closed$ : of(failure))),
    ),
  ).subscribe(failAll);

  /** Sends a pending request under a new id, with `_meta.progressToken` set to that id. */
  const send = (entry: Pending): void => {
    const id = nextId++;
    entry.id = id;
    const params = entry.params;
    const meta = params['_meta'];
    let sent: JsonObject;
    if (entry.fresh && isObject(meta)) {
      // Objects made for this exchange alone (ExchangeOptions.fresh): set in place. Only once:
      // the frame sent first may still be held (an in-memory server), so a resend copies.
      entry.fresh = false;
      meta['progressToken'] = id;
      sent = params;
    } else {
      // As `{ ...params, _meta: { ...meta, progressToken: id } }`, without the slow spreads.
      const sentMeta = isObject(meta) ? shallowCopy(meta) : {};
      sentMeta['progressToken'] = id;
      sent = shallowCopy(params);
      sent['_meta'] = sentMeta;
    }
    entry.started = logger.enabled('debug') ? Date.now() : 0;
    pending.set(entry);
    if (transport.sendLine === undefined) transport.send(request(id, entry.method, sent));
    else transport.sendLine(requestLine(id, entry.method, sent));
  };

  /**
   * The unsubscribe of every exchange of this connection, called as the method of its entry (one
   * function, not a closure per request, issue 13): the sink gets nothing more, and an exchange
   * still waiting for its response is cancelled upstream.
   */
  function cancelPending(this: Pending): void {
    if (this.closed) return;
    this.closed = true;
    const id = this.id;
    if (finish(id, 'cancelled') === undefined) return;
    const reason = this.options.cancelReason?.() ?? 'the client canceled the request';
    transport.send(notification('notifications/cancelled', { requestId: id, reason }));
  }

  /**
   * One exchange, delivered to `sink` (UpstreamConnection.exchange); `request` is the same
   * exchange as an observable. Unsubscribing the handle before the response cancels it upstream.
   */
  const exchange = (
    method: string,
    params: JsonObject,
    options: ExchangeOptions,
    sink: ExchangeSink,
  ): Unsubscribable => {
    const entry: Pending = {
      id: 0,
      method,
      params,
      sink,
      closed: false,
      started: 0,
      options,
      retries: retryLogger === undefined ? 0 : 1,
      fresh: options.fresh === true,
      unsubscribe: cancelPending,
    };
    if (gone !== undefined) {
      entry.closed = true;
      sink.error(gone);
      return entry;
    }
    send(entry);
    return entry;
  };

  const requestFn = (
    method: string,
    params: JsonObject,
    options: ExchangeOptions = {},
  ): Observable<ExchangeEvent> =>
    new Observable<ExchangeEvent>((subscriber) => exchange(method, params, options, subscriber));

  const connection: UpstreamConnection = {
    request: requestFn,
    exchange,
    notifications$: notifications.asObservable(),
    exit$,
    remote: false,
    close: () => {
      lifecycle.unsubscribe();
      failAll(new BridgeError('closed'));
      notifications.complete();
      transport.close();
    },
  };
  // withVersionRetry turns the retry of a -32022 on here instead of wrapping each request in an
  // observable of its own (issue 13); its logger writes the warning, as the wrapper's would.
  selfRetrying.set(connection, (retryWith) => {
    retryLogger = retryWith;
  });
  return connection;
}
