/**
 * Version negotiation with the upstream (docs/lifecycle.md#lifecycle-initialize step 3, docs/errors.md#errors-upstream-codes, docs/errors.md#errors-upstream-codes): a request
 * answered with `-32022` UnsupportedProtocolVersion (on Streamable HTTP an HTTP 400 with that
 * JSON-RPC error body, which the HTTP edge hands on as the response) whose `data.supported` lists
 * 2026-07-28 is sent once more; the bridge speaks no other version, so any other list is final and
 * the error goes on to the caller (`initialize` names the offered versions, see initialize.ts).
 * It wraps the connection of both transports, so every request of a session gets the same rule.
 */
import { Observable } from 'rxjs';
import type { Subscription } from 'rxjs';
import { PROTOCOL_VERSION } from '../codec/meta.js';
import { UNSUPPORTED_PROTOCOL_VERSION } from '../protocol/errors.js';
import type { ErrorObject, ResponseFrame } from '../protocol/jsonrpc.js';
import { isErrorResponse, isObject } from '../protocol/jsonrpc.js';
import type { Logger } from '../ports/logger.js';
import type { ExchangeEvent, UpstreamConnection } from '../ports/upstream.js';

/** At most this many versions of an upstream list reach a message; each one is checked for shape. */
const MAX_NAMED_VERSIONS = 8;
const VERSION_SHAPE = /^[0-9A-Za-z._-]{1,40}$/;

/**
 * The versions a `-32022` error offers (`data.supported`), or undefined for another error. Only
 * short version-like strings are kept: they go into a message for the client and a log line.
 */
export function offeredVersions(error: ErrorObject): string[] | undefined {
  if (error.code !== UNSUPPORTED_PROTOCOL_VERSION) return undefined;
  const data = isObject(error.data) ? error.data : {};
  const supported = Array.isArray(data['supported']) ? data['supported'] : [];
  return supported
    .filter((item): item is string => typeof item === 'string' && VERSION_SHAPE.test(item))
    .slice(0, MAX_NAMED_VERSIONS);
}

/** A response `-32022` that lists 2026-07-28 among the supported versions. */
export function refusedButSupported(frame: ResponseFrame): boolean {
  return isErrorResponse(frame) && offeredVersions(frame.error)?.includes(PROTOCOL_VERSION) === true;
}

const retryable = (event: ExchangeEvent): boolean =>
  event.type === 'response' && refusedButSupported(event.frame);

/** The warning before the request goes out once more. */
export const retryWarning = (method: string): string =>
  `${method}: the upstream server refused the protocol version ${PROTOCOL_VERSION} (-32022) but lists it as supported; the bridge sends the request once more`;

/**
 * Connections that send a request once more by themselves (rpcConnection.ts), with how to turn
 * that on: withVersionRetry then returns the connection itself, without an observable per
 * request around it. Not part of the package's API.
 */
export const selfRetrying = new WeakMap<UpstreamConnection, (logger: Logger) => void>();

/**
 * The connection with the retry of a `-32022` that offers 2026-07-28: once per request. Written
 * by hand, not with `mergeMap` and `of` per event: every upstream event of every request passes
 * here (a cheap path per request).
 */
export function withVersionRetry(connection: UpstreamConnection, logger: Logger): UpstreamConnection {
  const turnOn = selfRetrying.get(connection);
  if (turnOn !== undefined) {
    turnOn(logger);
    return connection;
  }
  const request: UpstreamConnection['request'] = (method, params, options) =>
    new Observable<ExchangeEvent>((subscriber) => {
      let current: Subscription | undefined;
      const attempt = (retriesLeft: number): void => {
        let retried = false;
        const subscription = connection.request(method, params, options).subscribe({
          next: (event) => {
            if (retriesLeft > 0 && retryable(event)) {
              logger.log('bridge', 'warn', retryWarning(method));
              // The response was the last event of the exchange: the retry is a new exchange, new id.
              retried = true;
              attempt(retriesLeft - 1);
              return;
            }
            subscriber.next(event);
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            if (!retried) subscriber.complete();
          },
        });
        // After a retry only the new exchange is kept: the old one ended with its response (an
        // exchange completes right after its response, UpstreamConnection.request).
        if (!retried) current = subscription;
      };
      attempt(1);
      return () => current?.unsubscribe();
    });
  return {
    request,
    notifications$: connection.notifications$,
    exit$: connection.exit$,
    remote: connection.remote,
    close: () => connection.close(),
  };
}
