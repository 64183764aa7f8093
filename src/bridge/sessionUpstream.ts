/**
 * The upstream as one client connection sees it (docs/serve.md#serve-routing). Under `serve`
 * many connections share one upstream; what an exchange brings that is not for every client
 * stays with the connection that made it:
 * - each exchange names the connection's consent port, so a sign-in that its request needs asks
 *   this client and never another one (docs/sign-in.md#sign-in-consent);
 * - each exchange names where its log messages go (an HTTP upstream writes them on the response
 *   stream of their request, a stdio upstream tags those of a listen stream): the upstream hands
 *   them to this connection's log messages (ExchangeOptions.logs), so they reach this client only,
 *   at this client's level (docs/notifications.md#notifications-log-levels).
 *
 * Both are options of the exchange, not a step between the exchange and its subscriber: every
 * upstream round passes here, and a step of its own per round cost about 4 % of the bridge's
 * instructions per call (bench/README.md, "The view of the upstream as options"). Only telemetry,
 * when it is on, adds one: the round's span ends with the round's events.
 */
import { Observable } from 'rxjs';
import type { Subscriber, Unsubscribable } from 'rxjs';
import type { JsonObject, NotificationFrame } from '../protocol/jsonrpc.js';
import type { ConsentPort } from '../ports/signIn.js';
import type { RoundHandle } from '../ports/telemetry.js';
import type { ExchangeEvent, ExchangeOptions, ExchangeSink, UpstreamConnection } from '../ports/upstream.js';
import { failureType, roundOutcome, withTraceContext } from './requestTelemetry.js';

type Request = UpstreamConnection['request'];

/**
 * The options of one exchange of the view: the caller's, with this connection's consent port
 * (when the bridge has a sign-in) and log messages. A literal of the members of ExchangeOptions,
 * not a spread: a spread of an object with functions costs more than the rest of a round's
 * options here.
 */
function viewOptions(
  options: ExchangeOptions | undefined,
  consent: ConsentPort | undefined,
  logs: (frame: NotificationFrame) => void,
): ExchangeOptions {
  // Every member named (Required): a member added to ExchangeOptions fails to compile here
  // until the view passes it on.
  const out: Required<ExchangeOptions> = {
    cancelReason: options?.cancelReason,
    trace: options?.trace,
    consent: consent ?? options?.consent,
    logs,
  };
  return out;
}

/**
 * One exchange with its round span (telemetry on): the observer of the upstream's exchange and
 * the teardown of the view's. Its functions are shared by all exchanges and read it from `this`,
 * as RxJS calls an observer's functions and a teardown's `unsubscribe` as methods.
 */
interface SpanRelay extends ExchangeSink, Unsubscribable {
  readonly subscriber: Subscriber<ExchangeEvent>;
  readonly span: RoundHandle;
  /** The upstream's exchange, once subscribed. */
  exchange: Unsubscribable | undefined;
}

function relayNext(this: SpanRelay, event: ExchangeEvent): void {
  if (event.type === 'response') this.span.end(roundOutcome(event.frame));
  this.subscriber.next(event);
}
function relayError(this: SpanRelay, error: unknown): void {
  this.span.end({ errorType: failureType(error) });
  this.subscriber.error(error);
}
function relayComplete(this: SpanRelay): void {
  this.subscriber.complete();
}
function relayUnsubscribe(this: SpanRelay): void {
  this.exchange?.unsubscribe();
  // A no-op after the response: a round span ends once.
  this.span.end({ errorType: 'cancelled' });
}

/**
 * `request` with a span per round of a client request (`round`), whose trace context goes
 * upstream in `_meta` (docs/observability.md#observability-spans): the one place of the bridge
 * where every upstream round passes.
 */
function withRoundSpans(
  request: (method: string, params: JsonObject, options: ExchangeOptions) => Observable<ExchangeEvent>,
  round: (options: ExchangeOptions | undefined) => RoundHandle | undefined,
): Request {
  return (method, params, options) =>
    new Observable<ExchangeEvent>((subscriber) => {
      const span = round(options);
      if (span === undefined) return request(method, params, options ?? {}).subscribe(subscriber);
      const sent = span.context === undefined ? params : withTraceContext(params, span.context);
      const relay: SpanRelay = {
        subscriber,
        span,
        exchange: undefined,
        next: relayNext,
        error: relayError,
        complete: relayComplete,
        unsubscribe: relayUnsubscribe,
      };
      relay.exchange = request(method, sent, options ?? {}).subscribe(relay);
      return relay;
    });
}

/**
 * The view of `upstream` for one connection: `consent` goes with each exchange (when the bridge
 * has a sign-in), and `logs` gets the log messages of its exchanges, which its subscriber then
 * never sees. Everything else is the upstream's own (its extra members too: the view is a copy).
 * `round` (telemetry on) gives each exchange of a client request its round span.
 */
export function sessionUpstream(
  upstream: UpstreamConnection,
  consent: ConsentPort | undefined,
  logs: (frame: NotificationFrame) => void,
  round?: (options: ExchangeOptions | undefined) => RoundHandle | undefined,
): UpstreamConnection {
  const request = (method: string, params: JsonObject, options: ExchangeOptions | undefined) =>
    upstream.request(method, params, viewOptions(options, consent, logs));
  return { ...upstream, request: round === undefined ? request : withRoundSpans(request, round) };
}
