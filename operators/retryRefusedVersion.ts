import { Observable } from 'rxjs';
import type { MonoTypeOperatorFunction } from 'rxjs';
import type { ExchangeEvent } from '../src/ports/upstream.js';
import type { ErrorFrame } from '../src/protocol/jsonrpc.js';
import { newAttempt, subscribeAttempt } from './internal/retryAttempt.js';

/** Settings of retryRefusedVersion. */
export interface RetryRefusedVersionConfig {
  /**
   * Called with the refusal just before the source is subscribed again (the bridge writes its
   * warning line here). A throw errors the output with what it threw, and the source is not
   * subscribed again (rule 7). Default: nothing.
   */
  readonly onRetry?: ((refusal: ErrorFrame) => void) | undefined;
}

/**
 * Sends an upstream request once more when the upstream refuses the protocol version 2026-07-28
 * with `-32022` yet lists 2026-07-28 in `data.supported` (docs/lifecycle.md#lifecycle-initialize
 * step 3, docs/errors.md#errors-upstream-codes). The source is one exchange, cold: each
 * subscription sends the request, with a new id. Any other refusal is final (the bridge speaks
 * no other version), and so is a second one: a server that refuses twice is not asked a third time.
 *
 * ```text
 * source:  --x|         x = -32022 listing 2026-07-28, r = its response the second time
 *            --r|
 * output:  ----r|
 * ```
 *
 * Written by hand, not with `retry` and a thrown refusal: every event of every exchange passes
 * here, so the steady path is one subscription, one object and one check per event.
 *
 * Rules (marbles/versionRetry.marbles.test.ts):
 * 1. events pass unchanged, and the output ends as the source ends
 * 2. a -32022 that lists 2026-07-28 is not emitted: the source is unsubscribed and subscribed once more
 * 3. a second refusal passes as the response, and the source is not subscribed a third time
 * 4. a -32022 without 2026-07-28 and any other error response pass unchanged
 * 5. a refusal during the subscription of the source is retried too
 * 6. onRetry gets the refusal before the source is subscribed again
 * 7. a throw of onRetry errors the output with what it threw, and the source is not subscribed again
 * 8. unsubscribing the output after a retry unsubscribes the second subscription of the source
 * 9. the observer it gives the source works when its functions are called unbound
 *
 * @example
 * import { defer, of } from 'rxjs';
 * import type { ExchangeEvent } from 'mcp-bridge-sdk';
 * import { retryRefusedVersion } from 'mcp-bridge-sdk/operators';
 * const refusal: ExchangeEvent = {
 *   type: 'response',
 *   frame: { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } } },
 * };
 * const answer: ExchangeEvent = { type: 'response', frame: { jsonrpc: '2.0', id: 2, result: {} } };
 * let sent = 0;
 * const exchange = defer(() => of(++sent === 1 ? refusal : answer)); // one request per subscription
 * const events: ExchangeEvent[] = [];
 * exchange.pipe(retryRefusedVersion()).subscribe((event) => events.push(event));
 * // sent: 2, events: [answer]
 */
export function retryRefusedVersion<T extends ExchangeEvent>(
  config: RetryRefusedVersionConfig = {},
): MonoTypeOperatorFunction<T> {
  const onRetry = config.onRetry;
  return (source) =>
    new Observable<T>((subscriber) => {
      const attempt = newAttempt(subscriber, source, onRetry, undefined);
      subscribeAttempt(attempt);
      return attempt;
    });
}
