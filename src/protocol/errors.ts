/**
 * The error table of the bridge (docs/errors.md#errors-table). Every error the bridge makes has
 * `error.data = { cause, detail? }`; codes and causes are a contract, the wording is ours. The
 * texts name no product and no command-line option: an executable adds its own hints
 * (src/cli/errorHints.ts).
 */
import type { ErrorObject, ErrorFrame, RequestId } from './jsonrpc.js';
import { errorResponse } from './jsonrpc.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** 2025-11-25 URL elicitation required; retired in 2026-07-28 (docs/results.md#results-upstream-errors). */
export const URL_ELICITATION_REQUIRED = -32042;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

const UPSTREAM_LOG = 'See the Output channel of the server.';

/** Cause → [code, message]. */
export const ERROR_TABLE = {
  parse_error: [PARSE_ERROR, 'The request is not valid JSON.'],
  invalid_request_shape: [INVALID_REQUEST, 'The message is not a valid JSON-RPC 2.0 request.'],
  line_too_long: [INVALID_REQUEST, 'The request is longer than the line limit of the bridge.'],
  too_deep: [INVALID_REQUEST, 'The request has more levels of nesting than the limit of the bridge.'],
  not_initialized: [INVALID_REQUEST, 'The client has not initialized the connection. Send initialize first.'],
  already_initialized: [INVALID_REQUEST, 'The client has already sent initialize on this connection.'],
  method_not_found: [METHOD_NOT_FOUND, 'The server has no such method.'],
  invalid_params: [INVALID_PARAMS, 'The parameters of the request are not valid.'],
  invalid_meta: [INVALID_PARAMS, 'The request has a _meta key that the bridge cannot send upstream.'],
  // No trailing period: docs/requests.md#requests-in-flight and docs/requests.md#requests-in-flight.
  too_many_requests: [INTERNAL_ERROR, 'The connection has too many requests in flight'],
  duplicate_request_id: [
    INVALID_REQUEST,
    'A request with this id is still in flight on this connection. Send the request with another id.',
  ],
  timeout: [INTERNAL_ERROR, `The upstream server did not answer in time. ${UPSTREAM_LOG}`],
  closed: [INTERNAL_ERROR, `The upstream server process stopped. ${UPSTREAM_LOG}`],
  upstream_exited: [INTERNAL_ERROR, `The upstream server process stopped. ${UPSTREAM_LOG}`],
  transport_failed: [INTERNAL_ERROR, `The connection to the upstream server failed. ${UPSTREAM_LOG}`],
  invalid_response: [
    INTERNAL_ERROR,
    `The upstream server sent a response that is not valid. ${UPSTREAM_LOG}`,
  ],
  too_many_rounds: [INTERNAL_ERROR, `The upstream server asked for input too many times. ${UPSTREAM_LOG}`],
  spawn_failed: [
    INTERNAL_ERROR,
    `The bridge cannot start the upstream server. Check the command in the server configuration. ${UPSTREAM_LOG}`,
  ],
  connect_failed: [
    INTERNAL_ERROR,
    `The bridge cannot make a client for the URL of the upstream server. Check the proxy and CA settings. ${UPSTREAM_LOG}`,
  ],
  discover_failed: [
    INTERNAL_ERROR,
    'The upstream server did not answer server/discover: it is not an MCP server of revision 2026-07-28, ' +
      `or it does not respond. ${UPSTREAM_LOG}`,
  ],
  undeclared_input_request: [
    INTERNAL_ERROR,
    'The upstream server asked for input that the client did not declare.',
  ],
  invalid_input_request: [
    INTERNAL_ERROR,
    `The upstream server sent an input request that is not valid for the client. ${UPSTREAM_LOG}`,
  ],
  too_many_input_requests: [
    INTERNAL_ERROR,
    'The upstream server asked for more inputs at once than the limit of the bridge.',
  ],
  input_timeout: [
    INTERNAL_ERROR,
    'The client did not answer the input request of the upstream server in time.',
  ],
  invalid_client_answer: [
    INTERNAL_ERROR,
    'The client sent an answer that is not valid for the input request of the upstream server.',
  ],
  internal: [INTERNAL_ERROR, 'The bridge failed inside. See the Output channel of the server.'],
  // The sign-in causes (docs/errors.md#errors-sign-in). Messages never hold the upstream URL; a
  // number that varies (a port, a time limit, an HTTP status) goes into the detail.
  sign_in_failed: [
    INTERNAL_ERROR,
    `The sign-in at the authorization server of the upstream server failed. ${UPSTREAM_LOG}`,
  ],
  sign_in_timeout: [
    INTERNAL_ERROR,
    'The sign-in did not complete in the time limit of the detail. Sign in again, or give the bridge ' +
      'more time. If the authorization server no longer knows the bridge, delete its stored sign-in ' +
      'and sign in again.',
  ],
  sign_in_denied: [
    INTERNAL_ERROR,
    'The authorization server refused the access. Sign in again with an account that may use the upstream server.',
  ],
  sign_in_error: [INTERNAL_ERROR, `The authorization server sent an error for the sign-in. ${UPSTREAM_LOG}`],
  sign_in_invalid_url: [
    INTERNAL_ERROR,
    'The authorization server sent an authorization URL that is not valid. The bridge did not open it.',
  ],
  sign_in_start_reused: [
    INTERNAL_ERROR,
    'The start URL of the sign-in received a second request, thus the bridge stopped the sign-in. ' +
      'Start the sign-in again.',
  ],
  sign_in_throttled: [
    INTERNAL_ERROR,
    'The upstream server asked for a sign-in too often in a short time, thus the bridge did not start ' +
      `another one. Try again in a minute. ${UPSTREAM_LOG}`,
  ],
  sign_in_hijacked: [
    INTERNAL_ERROR,
    'The start URL of the sign-in received a second request after the sign-in, thus the bridge did ' +
      'not use it: someone else may have signed in with their own account. Start the sign-in again.',
  ],
  browser_launch_failed: [
    INTERNAL_ERROR,
    `The bridge cannot open the browser for the sign-in. Open the URL of the sign-in line in a browser. ${UPSTREAM_LOG}`,
  ],
  redirect_port_unavailable: [
    INTERNAL_ERROR,
    'The bridge cannot listen on the redirect port of the detail. Close the program that uses it, or give ' +
      'the bridge another redirect port.',
  ],
  registration_unavailable: [
    INTERNAL_ERROR,
    'The authorization server offers no client registration. Register a client with the redirect URI of ' +
      'the detail at the authorization server, then give the bridge its client ID and issuer.',
  ],
  registration_failed: [
    INTERNAL_ERROR,
    `The authorization server refused the client registration of the bridge. ${UPSTREAM_LOG}`,
  ],
  issuer_not_registered: [
    INTERNAL_ERROR,
    'The upstream server uses another authorization server than the issuer of the client of the bridge. ' +
      'Give the bridge the client ID and issuer of that server.',
  ],
  invalid_client_metadata_url: [
    INTERNAL_ERROR,
    'The client metadata document URL is not valid. Give an https URL with a path, and without user, ' +
      'password or fragment.',
  ],
  access_refused: [
    INTERNAL_ERROR,
    'The upstream server refused the access after the sign-in. The account may lack a permission.',
  ],
  reauthorization_required: [
    INTERNAL_ERROR,
    'The upstream server needs a new sign-in, and the client did not open the URL of the sign-in. ' +
      'Accept the sign-in request of the server, or restart the server to sign in again.',
  ],
  sandbox: [
    INTERNAL_ERROR,
    'The upstream server needs a sign-in, but the bridge runs in a sandbox that allows no sign-in. Sign ' +
      'in once outside the sandbox, or turn the sandbox off for this server.',
  ],
} as const satisfies Record<string, readonly [number, string]>;

/** The stable string codes of the error table. */
export type Cause = keyof typeof ERROR_TABLE;

/** The error object of a bridge-made error. */
export function bridgeError(cause: Cause, detail?: string, code?: number): ErrorObject {
  const [tableCode, message] = ERROR_TABLE[cause];
  return {
    code: code ?? tableCode,
    message,
    data: detail === undefined ? { cause } : { cause, detail },
  };
}

/** A JSON-RPC error frame for a bridge-made error. */
export const bridgeErrorFrame = (
  id: RequestId | null,
  cause: Cause,
  detail?: string,
  code?: number,
): ErrorFrame => errorResponse(id, bridgeError(cause, detail, code));

/** Formats a limit as the detail texts do: whole seconds, or milliseconds below one second. */
export const formatDuration = (ms: number): string =>
  ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
