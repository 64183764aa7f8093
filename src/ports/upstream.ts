/**
 * What the bridge needs from an upstream connection (a 2026-07-28 server over stdio or HTTP).
 * Edges implement it (src/edges/childProcess.ts, src/edges/http/httpUpstream.ts); tests inject
 * cold observables.
 */
import type { Observable } from 'rxjs';
import type { JsonObject, NotificationFrame, ResponseFrame } from '../protocol/jsonrpc.js';
import type { ConsentPort } from './signIn.js';

/**
 * One frame that belongs to an upstream exchange: what `request` emits, and what the operators
 * driveInputRounds (one exchange per round) and reopenListen (one per listen stream) read.
 */
export type ExchangeEvent =
  /**
   * A notification correlated to the exchange: progress (by token), listen events (by
   * subscriptionId), an upstream `notifications/cancelled` naming the exchange, or a
   * `notifications/message` that arrived in the exchange (HTTP: on its response stream) when
   * the exchange has no `ExchangeOptions.logs`.
   */
  | { readonly type: 'notification'; readonly frame: NotificationFrame }
  /** The final response; the observable completes right after it. */
  | { readonly type: 'response'; readonly frame: ResponseFrame };

/** Options of one upstream exchange. */
export interface ExchangeOptions {
  /**
   * Read when the subscriber unsubscribes before the response: the reason sent upstream with
   * `notifications/cancelled` (stdio) — HTTP closes the stream instead.
   */
  readonly cancelReason?: (() => string) | undefined;
  /** For debug lines: `round <n> of client request <id>`. */
  readonly trace?: { readonly round: number; readonly clientId?: string | number } | undefined;
  /**
   * The client connection the exchange is made for: a sign-in it needs asks this port, never the
   * port of another connection (docs/sign-in.md#sign-in-consent, docs/serve.md#serve-routing).
   * Absent: the sign-in asks its relay's port.
   */
  readonly consent?: ConsentPort | undefined;
  /**
   * Where the log messages (`notifications/message`) that arrive in this exchange go instead of
   * its events: the client connection that made it (docs/serve.md#serve-routing). An upstream
   * routes them with `tookExchangeLog` (below). Absent: they are
   * events of the exchange.
   */
  readonly logs?: ((frame: NotificationFrame) => void) | undefined;
}

/**
 * What an exchange reports to: the subscriber of its observable, which src/bridge/rpcExchanges.ts
 * keeps in its table until the response. Not part of the package's API.
 */
export interface ExchangeSink {
  next(event: ExchangeEvent): void;
  error(error: unknown): void;
  complete(): void;
}

/** The upstream as the bridge uses it: one exchange per request, the notifications, and how it ended. */
export interface UpstreamConnection {
  /**
   * Sends one request and emits its correlated frames, then the response, then completes.
   * Cold: nothing is sent before a subscription, and each subscription is an exchange of its own
   * (the bridge subscribes once more to send a request again, src/bridge/versionRetry.ts).
   * The connection assigns the id (an integer counter from 1) and sets `_meta.progressToken`
   * to that id. Unsubscribing before the response cancels the exchange. Transport failures
   * are stream errors of type BridgeError with code `closed`, `upstream_exited`,
   * `transport_failed`, `invalid_response` or `connect_failed` (details never hold frame
   * contents, header values or the upstream URL; HTTP failures set `httpStatus`).
   */
  request(method: string, params: JsonObject, options?: ExchangeOptions): Observable<ExchangeEvent>;
  /**
   * Upstream notifications that belong to no exchange (on stdio: `notifications/message`, which
   * carries no request there). An HTTP upstream has none: its log messages arrive on the response
   * stream of their request and are events of that exchange. Hot.
   */
  readonly notifications$: Observable<NotificationFrame>;
  /**
   * Emits once when the upstream is gone for good (stdio child exited: exit code or signal).
   * Never emits for HTTP. Hot.
   */
  readonly exit$: Observable<{ readonly code: number | null; readonly signal: string | null }>;
  /** True for an HTTP upstream (icon rule, docs/results.md#results-icons). */
  readonly remote: boolean;
  /** Stops the upstream: closes stdin, then terminates the child (process group) if needed. */
  close(): void;
}

/** The method of a log message. */
export const LOG_MESSAGE_METHOD = 'notifications/message';

/**
 * A notification that arrived in an exchange, as every upstream routes it: true when it is a log
 * message and the exchange has `logs` (ExchangeOptions.logs), which then got it; it is then not an
 * event of the exchange (docs/serve.md#serve-routing).
 */
export function tookExchangeLog(options: ExchangeOptions, frame: NotificationFrame): boolean {
  const logs = options.logs;
  if (logs === undefined || frame.method !== LOG_MESSAGE_METHOD) return false;
  logs(frame);
  return true;
}
