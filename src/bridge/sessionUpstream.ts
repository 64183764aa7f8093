/**
 * The upstream as one client connection sees it (docs/serve.md#serve-routing). Under `serve`
 * many connections share one upstream; what an exchange brings that is not for every client
 * stays with the connection that made it:
 * - each exchange names the connection's consent port, so a sign-in that its request needs asks
 *   this client and never another one (docs/sign-in.md#sign-in-consent);
 * - a log message that arrives in an exchange (an HTTP upstream writes it on the response stream
 *   of its request) leaves the exchange for this connection's log messages, so it reaches this
 *   client only, at this client's level (docs/notifications.md#notifications-log-levels).
 */
import { Observable } from 'rxjs';
import { LOG_MESSAGE_METHOD } from '../codec/logMessage.js';
import type { NotificationFrame } from '../protocol/jsonrpc.js';
import type { ConsentPort } from '../ports/signIn.js';
import type { ExchangeEvent, UpstreamConnection } from '../ports/upstream.js';

/**
 * The view of `upstream` for one connection: `consent` goes with each exchange (when the bridge
 * has a sign-in), and `logs` gets the log messages of its exchanges, which its subscriber then
 * never sees. Everything else is the upstream's own (its extra members too: the view is a copy).
 */
export function sessionUpstream(
  upstream: UpstreamConnection,
  consent: ConsentPort | undefined,
  logs: (frame: NotificationFrame) => void,
): UpstreamConnection {
  return {
    ...upstream,
    request: (method, params, options) =>
      // One subscriber per exchange rather than an operator: this runs for every round.
      new Observable<ExchangeEvent>((subscriber) =>
        upstream
          .request(method, params, consent === undefined ? options : { ...options, consent })
          .subscribe({
            next: (event) => {
              if (event.type === 'notification' && event.frame.method === LOG_MESSAGE_METHOD) {
                logs(event.frame);
                return;
              }
              subscriber.next(event);
            },
            error: (error: unknown) => subscriber.error(error),
            complete: () => subscriber.complete(),
          }),
      ),
  };
}
