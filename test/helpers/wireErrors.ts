/**
 * The wire error table of the bridge written out in literal values (docs/errors.md#errors-table
 * for the codes and causes; the message texts are our own wording, fixed here): what the client
 * sees for each cause. Tests build their expected frames from this, never from
 * src/protocol/errors.ts, so that a change of a code or a message there fails a test.
 */
import type { ErrorFrame, ErrorObject, RequestId } from '../../src/protocol/jsonrpc.js';

const SEE_LOG = 'See the Output channel of the server.';

export const WIRE_ERRORS = {
  parse_error: [-32700, 'The request is not valid JSON.'],
  invalid_request_shape: [-32600, 'The message is not a valid JSON-RPC 2.0 request.'],
  line_too_long: [-32600, 'The request is longer than the line limit of the bridge.'],
  too_deep: [-32600, 'The request has more levels of nesting than the limit of the bridge.'],
  not_initialized: [-32600, 'The client has not initialized the connection. Send initialize first.'],
  already_initialized: [-32600, 'The client has already sent initialize on this connection.'],
  method_not_found: [-32601, 'The server has no such method.'],
  invalid_params: [-32602, 'The parameters of the request are not valid.'],
  invalid_meta: [-32602, 'The request has a _meta key that the bridge cannot send upstream.'],
  too_many_requests: [-32603, 'The connection has too many requests in flight'],
  duplicate_request_id: [
    -32600,
    'A request with this id is still in flight on this connection. Send the request with another id.',
  ],
  timeout: [-32603, `The upstream server did not answer in time. ${SEE_LOG}`],
  closed: [-32603, `The upstream server process stopped. ${SEE_LOG}`],
  upstream_exited: [-32603, `The upstream server process stopped. ${SEE_LOG}`],
  transport_failed: [-32603, `The connection to the upstream server failed. ${SEE_LOG}`],
  invalid_response: [-32603, `The upstream server sent a response that is not valid. ${SEE_LOG}`],
  too_many_rounds: [-32603, `The upstream server asked for input too many times. ${SEE_LOG}`],
  spawn_failed: [
    -32603,
    `The bridge cannot start the upstream server. Check the command in the server configuration. ${SEE_LOG}`,
  ],
  connect_failed: [
    -32603,
    `The bridge cannot make a client for the URL of the upstream server. Check the proxy and CA settings. ${SEE_LOG}`,
  ],
  discover_failed: [
    -32603,
    'The upstream server did not answer server/discover: it is not an MCP server of revision 2026-07-28, ' +
      `or it does not respond. ${SEE_LOG}`,
  ],
  undeclared_input_request: [-32603, 'The upstream server asked for input that the client did not declare.'],
  invalid_input_request: [
    -32603,
    `The upstream server sent an input request that is not valid for the client. ${SEE_LOG}`,
  ],
  too_many_input_requests: [
    -32603,
    'The upstream server asked for more inputs at once than the limit of the bridge.',
  ],
  input_timeout: [-32603, 'The client did not answer the input request of the upstream server in time.'],
  invalid_client_answer: [
    -32603,
    'The client sent an answer that is not valid for the input request of the upstream server.',
  ],
  internal: [-32603, `The bridge failed inside. ${SEE_LOG}`],
  // The sign-in causes (docs/errors.md#errors-sign-in): no message holds the upstream URL.
  sign_in_failed: [
    -32603,
    `The sign-in at the authorization server of the upstream server failed. ${SEE_LOG}`,
  ],
  sign_in_timeout: [
    -32603,
    'The sign-in did not complete in the time limit of the detail. Sign in again, or give the bridge more time. If the authorization server no longer knows the bridge, delete its stored sign-in and sign in again.',
  ],
  sign_in_denied: [
    -32603,
    'The authorization server refused the access. Sign in again with an account that may use the upstream server.',
  ],
  sign_in_error: [-32603, `The authorization server sent an error for the sign-in. ${SEE_LOG}`],
  sign_in_invalid_url: [
    -32603,
    'The authorization server sent an authorization URL that is not valid. The bridge did not open it.',
  ],
  sign_in_start_reused: [
    -32603,
    'The start URL of the sign-in received a second request, thus the bridge stopped the sign-in. Start the sign-in again.',
  ],
  sign_in_throttled: [
    -32603,
    `The upstream server asked for a sign-in too often in a short time, thus the bridge did not start another one. Try again in a minute. ${SEE_LOG}`,
  ],
  sign_in_hijacked: [
    -32603,
    'The start URL of the sign-in received a second request after the sign-in, thus the bridge did not use it: someone else may have signed in with their own account. Start the sign-in again.',
  ],
  browser_launch_failed: [
    -32603,
    `The bridge cannot open the browser for the sign-in. Open the URL of the sign-in line in a browser. ${SEE_LOG}`,
  ],
  redirect_port_unavailable: [
    -32603,
    'The bridge cannot listen on the redirect port of the detail. Close the program that uses it, or give the bridge another redirect port.',
  ],
  registration_unavailable: [
    -32603,
    'The authorization server offers no client registration. Register a client with the redirect URI of the detail at the authorization server, then give the bridge its client ID and issuer.',
  ],
  registration_failed: [
    -32603,
    `The authorization server refused the client registration of the bridge. ${SEE_LOG}`,
  ],
  issuer_not_registered: [
    -32603,
    'The upstream server uses another authorization server than the issuer of the client of the bridge. Give the bridge the client ID and issuer of that server.',
  ],
  invalid_client_metadata_url: [
    -32603,
    'The client metadata document URL is not valid. Give an https URL with a path, and without user, password or fragment.',
  ],
  access_refused: [
    -32603,
    'The upstream server refused the access after the sign-in. The account may lack a permission.',
  ],
  reauthorization_required: [
    -32603,
    'The upstream server needs a new sign-in, and the client did not open the URL of the sign-in. Accept the sign-in request of the server, or restart the server to sign in again.',
  ],
  sandbox: [
    -32603,
    'The upstream server needs a sign-in, but the bridge runs in a sandbox that allows no sign-in. Sign in once outside the sandbox, or turn the sandbox off for this server.',
  ],
} as const satisfies Record<string, readonly [number, string]>;

export type WireCause = keyof typeof WIRE_ERRORS;

/** The error object the client gets for a bridge error of `cause` (`code` overrides the table's). */
export function wireError(cause: WireCause, detail?: string, code?: number): ErrorObject {
  const [tableCode, message] = WIRE_ERRORS[cause];
  return { code: code ?? tableCode, message, data: detail === undefined ? { cause } : { cause, detail } };
}

/** The error response to request `id` for a bridge error of `cause` (`code` overrides the table's). */
export const wireErrorFrame = (
  id: RequestId | null,
  cause: WireCause,
  detail?: string,
  code?: number,
): ErrorFrame => ({ jsonrpc: '2.0', id, error: wireError(cause, detail, code) });
