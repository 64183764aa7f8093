/**
 * Where each upstream line goes (rpcConnection.ts): a response ends its exchange, a correlated
 * notification goes to its exchange (a log message to the exchange's `logs`, if any), an
 * uncorrelated `notifications/message` to the connection, the rest is logged and dropped. Lines are handled synchronously in arrival order, so an event the upstream
 * wrote before a result reaches the client before that result (docs/notifications.md#notifications-ordering).
 */
import type { Subject } from 'rxjs';
import { BridgeError } from '../protocol/bridgeError.js';
import type { NotificationFrame, RequestId } from '../protocol/jsonrpc.js';
import { isObject, isRequest, isResponse } from '../protocol/jsonrpc.js';
import { META_SUBSCRIPTION_ID as SUBSCRIPTION_ID } from '../protocol/metaKey.js';
import type { Inbound } from '../protocol/parseLine.js';
import { causeOf } from '../ports/causeOf.js';
import { tookExchangeLog } from '../ports/upstream.js';
import { finishExchange } from './rpcExchanges.js';
import type { Exchanges } from './rpcExchanges.js';

/** The request an upstream notification belongs to: progress token, listen tag, or cancel target. */
function correlatedId(frame: NotificationFrame): RequestId | undefined {
  const params = frame.params;
  if (params === undefined) return undefined;
  if (frame.method === 'notifications/progress') return params['progressToken'] as RequestId | undefined;
  if (frame.method === 'notifications/cancelled') return params['requestId'] as RequestId | undefined;
  const meta = params['_meta'];
  return isObject(meta) ? (meta[SUBSCRIPTION_ID] as RequestId | undefined) : undefined;
}

/**
 * Routes one upstream line; uncorrelated `notifications/message` frames go to `notifications`. A
 * bug on one line drops that line, never the connection.
 */
export function routeLine(
  exchanges: Exchanges,
  notifications: Subject<NotificationFrame>,
  inbound: Inbound,
): void {
  try {
    route(exchanges, notifications, inbound);
  } catch (error: unknown) {
    exchanges.logger.log(
      'bridge',
      'err',
      `dropped a line of the upstream server: the bridge failed on it (${causeOf(error)})`,
    );
  }
}

function route(exchanges: Exchanges, notifications: Subject<NotificationFrame>, inbound: Inbound): void {
  const logger = exchanges.logger;
  if (inbound.kind === 'bad') {
    // docs/upstream.md#upstream-transports: a frame the bridge cannot read fails the request it names.
    const id = inbound.id;
    const entry =
      typeof id === 'number' ? finishExchange(exchanges, id, `bad frame (${inbound.cause})`) : undefined;
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
    const entry = typeof frame.id === 'number' ? finishExchange(exchanges, frame.id, 'response') : undefined;
    if (entry === undefined) {
      logger.log('bridge', 'debug', 'dropped a response of the upstream server that belongs to no request');
      return;
    }
    if (!entry.closed) entry.sink.next({ type: 'response', frame });
    // The sink may have unsubscribed inside next (the request ended with this response).
    if (!entry.closed) entry.sink.complete();
    return;
  }
  if (isRequest(frame)) {
    // docs/upstream.md#upstream-stdio trap 35: a 2026-07-28 server never sends requests; never answer one.
    logger.log('bridge', 'warn', `ignored the request ${frame.method} of the upstream server`);
    return;
  }
  const target = correlatedId(frame);
  const entry = typeof target === 'number' ? exchanges.pending.get(target) : undefined;
  if (entry !== undefined) {
    // A log message goes to the connection that made the exchange, when it said where
    // (ExchangeOptions.logs).
    if (!entry.closed && !tookExchangeLog(entry.options, frame))
      entry.sink.next({ type: 'notification', frame });
  } else if (frame.method === 'notifications/message') notifications.next(frame);
  else if (logger.enabled('debug')) {
    logger.log(
      'bridge',
      'debug',
      `dropped the notification ${frame.method} of the upstream server: it belongs to no request`,
    );
  }
}
