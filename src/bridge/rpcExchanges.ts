/**
 * The exchanges in flight of one line-based upstream connection (rpcConnection.ts): their ids,
 * the request line with `_meta.progressToken` set to the id, the cancel sent upstream, and their
 * end (a response, or the end of the connection). Which exchange an upstream line belongs to is
 * rpcInbound.ts.
 */
import type { Unsubscribable } from 'rxjs';
import { shallowCopy } from '../codec/objects.js';
import type { BridgeError } from '../protocol/bridgeError.js';
import { CLIENT_CANCEL_REASON } from '../protocol/cancelReasons.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { isObject, notification, request } from '../protocol/jsonrpc.js';
import type { Logger } from '../ports/logger.js';
import { createPendingTable } from './pendingTable.js';
import type { PendingTable } from './pendingTable.js';
import type { LineTransport } from '../ports/lineTransport.js';
import type { ExchangeOptions, ExchangeSink } from '../ports/upstream.js';

/** One exchange in flight; it is also the teardown of its request (its unsubscribe cancels it). */
export interface Pending extends Unsubscribable {
  /** The upstream id of the request. */
  readonly id: number;
  readonly method: string;
  readonly sink: ExchangeSink;
  /** Set by the handle's unsubscribe: the sink gets nothing more. */
  closed: boolean;
  /** For the debug line only (0 without it): no clock read and no text per request otherwise. */
  started: number;
  readonly options: ExchangeOptions;
}

/** The exchanges of one connection, made once with it. */
export interface Exchanges {
  readonly transport: LineTransport;
  readonly logger: Logger;
  /** The exchanges waiting for their response, by upstream id. */
  readonly pending: PendingTable<Pending>;
  nextId: number;
  /** The failure that ended the connection: an exchange opened afterwards fails with it at once. */
  gone: BridgeError | undefined;
  /**
   * The unsubscribe of every exchange of this connection, called as the method of its entry (one
   * function per connection, not a closure per request).
   */
  readonly cancel: (this: Pending) => void;
}

export function createExchanges(transport: LineTransport, logger: Logger): Exchanges {
  /** The sink gets nothing more, and an exchange still waiting for its response is cancelled upstream. */
  function cancel(this: Pending): void {
    if (this.closed) return;
    this.closed = true;
    const id = this.id;
    if (finishExchange(exchanges, id, 'cancelled') === undefined) return;
    const reason = this.options.cancelReason?.() ?? CLIENT_CANCEL_REASON;
    transport.send(notification('notifications/cancelled', { requestId: id, reason }));
  }
  const exchanges: Exchanges = {
    transport,
    logger,
    pending: createPendingTable<Pending>(),
    nextId: 1,
    gone: undefined,
    cancel,
  };
  return exchanges;
}

/**
 * One exchange of UpstreamConnection.request, delivered to `sink` (its subscriber): the request
 * goes out under a new id, with `_meta.progressToken` set to that id. Unsubscribing the returned
 * entry before the response cancels it upstream.
 */
export function openExchange(
  exchanges: Exchanges,
  method: string,
  params: JsonObject,
  options: ExchangeOptions,
  sink: ExchangeSink,
): Pending {
  const id = exchanges.nextId++;
  const entry: Pending = {
    id,
    method,
    sink,
    closed: false,
    started: 0,
    options,
    unsubscribe: exchanges.cancel,
  };
  if (exchanges.gone !== undefined) {
    entry.closed = true;
    sink.error(exchanges.gone);
    return entry;
  }
  entry.started = exchanges.logger.enabled('debug') ? Date.now() : 0;
  exchanges.pending.set(entry);
  const meta = params['_meta'];
  // As `{ ...params, _meta: { ...meta, progressToken: id } }`, without the slow spreads; the
  // caller's objects stay as they were.
  const sentMeta = isObject(meta) ? shallowCopy(meta) : {};
  sentMeta['progressToken'] = id;
  const sent = shallowCopy(params);
  sent['_meta'] = sentMeta;
  exchanges.transport.send(request(id, method, sent));
  return entry;
}

const traceText = (trace: ExchangeOptions['trace']): string =>
  trace === undefined
    ? 'round 1 of no client request'
    : `round ${trace.round} of ${trace.clientId === undefined ? 'no client request' : `client request ${trace.clientId}`}`;

/** Takes the exchange of `id` out of the table (a debug line says how it ended), if it is there. */
export function finishExchange(exchanges: Exchanges, id: number, outcome: string): Pending | undefined {
  const entry = exchanges.pending.take(id);
  if (entry === undefined) return undefined;
  const logger = exchanges.logger;
  if (entry.started !== 0 && logger.enabled('debug')) {
    logger.log(
      'bridge',
      'debug',
      `upstream request ${id} (${entry.method}, ${traceText(entry.options.trace)}): ${outcome} after ${Date.now() - entry.started} ms`,
    );
  }
  return entry;
}

/** The end of the connection: every exchange in flight fails with `error`, and so does every later one. */
export function failAll(exchanges: Exchanges, error: BridgeError): void {
  exchanges.gone ??= error;
  for (const id of exchanges.pending.ids()) {
    const entry = finishExchange(exchanges, id, error.code);
    if (entry !== undefined && !entry.closed) entry.sink.error(error);
  }
}
