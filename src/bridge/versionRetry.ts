/**
 * Version negotiation with the upstream (docs/lifecycle.md#lifecycle-initialize step 3,
 * docs/errors.md#errors-upstream-codes): every request of a session, on both transports, runs
 * through retryRefusedVersion, which sends a request refused with `-32022` once more when the
 * refusal lists 2026-07-28 (on Streamable HTTP an HTTP 400 with that JSON-RPC error body, which
 * the HTTP edge hands on as the response). Any other refusal goes on to the caller (`initialize`
 * names the offered versions, see initialize.ts).
 */
import type { MonoTypeOperatorFunction } from 'rxjs';
import { retryRefusedVersion } from '../../operators/retryRefusedVersion.js';
import { PROTOCOL_VERSION } from '../codec/meta.js';
import type { Logger } from '../ports/logger.js';
import type { ExchangeEvent, UpstreamConnection } from '../ports/upstream.js';

/** The warning before the request goes out once more. */
export const retryWarning = (method: string): string =>
  `${method}: the upstream server refused the protocol version ${PROTOCOL_VERSION} (-32022) but lists it as supported; the bridge sends the request once more`;

/**
 * The connection whose every request gets the retry of a `-32022` that offers 2026-07-28, once.
 * One operator per method, made on its first request: the bridge sends a handful of methods, and
 * a request then costs no config, callback or operator of its own.
 */
export function withVersionRetry(connection: UpstreamConnection, logger: Logger): UpstreamConnection {
  const retries = new Map<string, MonoTypeOperatorFunction<ExchangeEvent>>();
  const retryOf = (method: string): MonoTypeOperatorFunction<ExchangeEvent> => {
    let retry = retries.get(method);
    if (retry === undefined) {
      retry = retryRefusedVersion<ExchangeEvent>({
        onRetry: () => logger.log('bridge', 'warn', retryWarning(method)),
      });
      retries.set(method, retry);
    }
    return retry;
  };
  return {
    request: (method, params, options) => retryOf(method)(connection.request(method, params, options)),
    notifications$: connection.notifications$,
    exit$: connection.exit$,
    remote: connection.remote,
    close: () => connection.close(),
  };
}
