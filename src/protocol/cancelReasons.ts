/**
 * The reasons the bridge writes into the `notifications/cancelled` it sends (upstream for a
 * stopped request or listen stream, to the client for a stopped input request), in one place, so
 * that each stop has one wording (docs/requests.md#requests-cancellation, docs/notifications.md#notifications-reconnect),
 * and the shape of a stop that carries one of them.
 */
import type { ErrorObject } from './jsonrpc.js';

/** Why a running request stops: a client cancel, the end of input, the loss of the upstream. */
export interface RequestStop {
  /** Sent upstream with `notifications/cancelled`. */
  readonly reason: string;
  /** The client's error response, if any (none for a client cancel or the end of input). */
  readonly error?: ErrorObject;
}

/** The client cancelled the request (its own `notifications/cancelled`, or the abort of its signal). */
export const CLIENT_CANCEL_REASON = 'the client canceled the request';
/** The client's input ended, or it closed the connection. */
export const CLIENT_CLOSED_REASON = 'the client closed the connection';
/** The client closed the response stream of one HTTP request (docs/serve.md#serve-rules). */
export const CLIENT_CLOSED_STREAM_REASON = 'the client closed the stream of the request';
/** The upstream process stopped (docs/lifecycle.md#lifecycle-upstream-loss). */
export const UPSTREAM_STOPPED_REASON = 'the upstream server stopped';
/** The request reached its time limit (docs/requests.md#requests-deadlines). */
export const TIMEOUT_REASON = 'the request timed out';
/** A new listen stream with other URIs took the place of this one (docs/notifications.md#notifications-subscribe). */
export const LISTEN_REPLACED_REASON = 'the bridge replaced the listen stream';
/** The upstream ended a listen stream with its own `notifications/cancelled` (docs/notifications.md#notifications-reconnect). */
export const LISTEN_ENDED_REASON = 'the upstream server ended the listen stream';
