/**
 * The wire error table pinned in literal values (docs/errors.md#errors-table):
 * every cause of src/protocol/errors.ts makes exactly the code and message of test/helpers/
 * wireErrors.ts, and `data` is `{cause, detail?}`. A changed code, message or cause fails here.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, bridgeError, bridgeErrorFrame } from '../../src/protocol/errors.js';
import type { Cause } from '../../src/protocol/errors.js';
import { WIRE_ERRORS } from '../helpers/wireErrors.js';

const causes = Object.keys(WIRE_ERRORS) as Cause[];

describe('the wire error table (§3.10)', () => {
  it('the bridge has exactly the causes of the table, no more and no fewer', () => {
    expect(Object.keys(ERROR_TABLE).sort()).toEqual([...causes].sort());
  });

  it.each(causes)('%s has its code, its message and data {cause}', (cause) => {
    const [code, message] = WIRE_ERRORS[cause];
    expect(bridgeError(cause)).toEqual({ code, message, data: { cause } });
  });

  it('the codes of §3.10, written out', () => {
    const codes = Object.fromEntries(causes.map((cause) => [cause, bridgeError(cause).code]));
    expect(codes).toEqual({
      parse_error: -32700,
      invalid_request_shape: -32600,
      line_too_long: -32600,
      too_deep: -32600,
      not_initialized: -32600,
      already_initialized: -32600,
      method_not_found: -32601,
      invalid_params: -32602,
      invalid_meta: -32602,
      too_many_requests: -32603,
      duplicate_request_id: -32600,
      timeout: -32603,
      closed: -32603,
      upstream_exited: -32603,
      transport_failed: -32603,
      invalid_response: -32603,
      too_many_rounds: -32603,
      spawn_failed: -32603,
      connect_failed: -32603,
      discover_failed: -32603,
      undeclared_input_request: -32603,
      invalid_input_request: -32603,
      too_many_input_requests: -32603,
      input_timeout: -32603,
      invalid_client_answer: -32603,
      internal: -32603,
      sign_in_failed: -32603,
      sign_in_timeout: -32603,
      sign_in_denied: -32603,
      sign_in_error: -32603,
      sign_in_invalid_url: -32603,
      sign_in_start_reused: -32603,
      sign_in_throttled: -32603,
      sign_in_hijacked: -32603,
      browser_launch_failed: -32603,
      redirect_port_unavailable: -32603,
      registration_unavailable: -32603,
      registration_failed: -32603,
      issuer_not_registered: -32603,
      invalid_client_metadata_url: -32603,
      access_refused: -32603,
      reauthorization_required: -32603,
      sandbox: -32603,
    });
  });

  it('a detail goes to data.detail, a given code wins, and the frame carries the id', () => {
    expect(bridgeErrorFrame(7, 'timeout', 'tools/call: no response in 1 s')).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32603,
        message: 'The upstream server did not answer in time. See the Output channel of the server.',
        data: { cause: 'timeout', detail: 'tools/call: no response in 1 s' },
      },
    });
    expect(bridgeError('discover_failed', 'Unknown method', -32601)).toMatchObject({
      code: -32601,
      data: { cause: 'discover_failed', detail: 'Unknown method' },
    });
    // §2.9 and §11 item 21: no trailing period on this one.
    expect(bridgeErrorFrame(null, 'too_many_requests').error.message).toBe(
      'The connection has too many requests in flight',
    );
  });
});
