/**
 * The failure of a POST that got no response head (docs/http-upstream.md#http-client): a
 * `transport_failed` whose detail says what broke, never the message of the error (it may name the
 * host or the proxy).
 */
import { BridgeError } from '../../protocol/bridgeError.js';
import { errorCode } from './errorCode.js';

/** Why a POST got no response head; never the message of the error (it may name the host). */
export function connectFailure(error: unknown, method: string): BridgeError {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : '';
  const tunnel =
    /Proxy response \((\d{3})\)/.exec(message) ?? /Proxy Authentication Required \((\d{3})\)/.exec(message);
  let detail = `the connection failed before the response (${code})`;
  if (tunnel !== null) detail = `the proxy refused the tunnel with the status ${tunnel[1]}`;
  else if (/CERT|SELF_SIGNED|UNABLE_TO_|SIGNATURE/.test(code)) {
    detail = `the certificate of the server is not trusted (${code})`;
  } else if (/^ERR_(TLS|SSL)/.test(code)) detail = `the TLS handshake failed (${code})`;
  else if (code === 'ECONNREFUSED') detail = 'the connection was refused (ECONNREFUSED)';
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    detail = `the host name cannot be resolved (${code})`;
  else if (code === 'UND_ERR_CONNECT_TIMEOUT') detail = 'the connection timed out (UND_ERR_CONNECT_TIMEOUT)';
  return new BridgeError('transport_failed', { detail: `${method}: ${detail}` });
}
