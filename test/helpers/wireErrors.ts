/**
 * The wire error table of the bridge written out in literal values (reference-behaviors.md §3.10
 * for the codes and causes; the message texts are our own wording, fixed here): what the client
 * sees for each cause. Tests build their expected frames from this, never from
 * src/protocol/errors.ts, so that a change of a code or a message there fails a test.
 */
import type { ErrorObject } from '../../src/protocol/jsonrpc.js';

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
} as const satisfies Record<string, readonly [number, string]>;

export type WireCause = keyof typeof WIRE_ERRORS;

/** The error object the client gets for a bridge error of `cause` (`code` overrides the table's). */
export function wireError(cause: WireCause, detail?: string, code?: number): ErrorObject {
  const [tableCode, message] = WIRE_ERRORS[cause];
  return { code: code ?? tableCode, message, data: detail === undefined ? { cause } : { cause, detail } };
}
