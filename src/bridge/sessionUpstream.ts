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
import type { Subscriber, Unsubscribable } from 'rxjs';
import { LOG_MESSAGE_METHOD } from '../codec/logMessage.js';
import type { NotificationFrame } from '../protocol/jsonrpc.js';
import type { ConsentPort } from '../ports/signIn.js';
import type { RoundHandle } from '../ports/telemetry.js';
import type { ExchangeEvent, ExchangeOptions, ExchangeSink, UpstreamConnection } from '../ports/upstream.js';
import { failureType, roundOutcome, withTraceContext } from './requestTelemetry.js';

/**
 * One exchange of the view: the observer of the upstream's exchange and the teardown of the
 * view's. Its functions are shared by all exchanges and read it from `this`, as RxJS calls an
 * observer's functions and a teardown's `unsubscribe` as methods (ExchangeSink,
 * src/ports/upstream.ts): every upstream round passes here, and a round then makes no closure,
 * no observer object and no teardown function of its own (bench/README.md, "The view of the
 * upstream per round").
 */
interface Relay extends ExchangeSink, Unsubscribable {
  readonly subscriber: Subscriber<ExchangeEvent>;
  readonly logs: (frame: NotificationFrame) => void;
  readonly span: RoundHandle | undefined;
  /** The upstream's exchange, once subscribed. */
  exchange: Unsubscribable | undefined;
}

function relayNext(this: Relay, event: ExchangeEvent): void {
  if (event.type === 'notification' && event.frame.method === LOG_MESSAGE_METHOD) {
    this.logs(event.frame);
    return;
  }
  if (event.type === 'response') this.span?.end(roundOutcome(event.frame));
  this.subscriber.next(event);
}
function relayError(this: Relay, error: unknown): void {
  this.span?.end({ errorType: failureType(error) });
  this.subscriber.error(error);
}
function relayComplete(this: Relay): void {
  this.subscriber.complete();
}
function relayUnsubscribe(this: Relay): void {
  this.exchange?.unsubscribe();
  // A no-op after the response: a round span ends once.
  this.span?.end({ errorType: 'cancelled' });
}

/**
 * The view of `upstream` for one connection: `consent` goes with each exchange (when the bridge
 * has a sign-in), and `logs` gets the log messages of its exchanges, which its subscriber then
 * never sees. Everything else is the upstream's own (its extra members too: the view is a copy).
 * `round` (telemetry on) gives each exchange of a client request its round span, whose trace
 * context goes upstream in `_meta` (docs/observability.md#observability-spans): the one place of
 * the bridge where every upstream round passes.
 */
export function sessionUpstream(
  upstream: UpstreamConnection,
  consent: ConsentPort | undefined,
  logs: (frame: NotificationFrame) => void,
  round?: (options: ExchangeOptions | undefined) => RoundHandle | undefined,
): UpstreamConnection {
  return {
    ...upstream,
    request: (method, params, options) =>
      new Observable<ExchangeEvent>((subscriber) => {
        const span = round?.(options);
        const sent = span?.context === undefined ? params : withTraceContext(params, span.context);
        const relay: Relay = {
          subscriber,
          logs,
          span,
          exchange: undefined,
          next: relayNext,
          error: relayError,
          complete: relayComplete,
          unsubscribe: relayUnsubscribe,
        };
        relay.exchange = upstream
          .request(method, sent, consent === undefined ? options : { ...options, consent })
          .subscribe(relay);
        return relay;
      }),
  };
}
