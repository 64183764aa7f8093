/**
 * The error of a refused token request of a grant without a person (docs/sign-in.md#sign-in-grants,
 * docs/sign-in.md#sign-in-id-jag): it names the error code the server gave when the code is one of
 * RFC 6749 §5.2 or RFC 8693 §2.2.2, else the status and the code as `refusal` writes them. Never a
 * description, a body or a URL (a description could carry what the request sent).
 */
import * as client from 'openid-client';
import { BridgeError } from '../../protocol/bridgeError.js';
import { refusal, safeCode } from '../flow.js';

/** The error codes of a token endpoint that name the cause of a refusal. */
const NAMED = new Set([
  'invalid_client',
  'unauthorized_client',
  'invalid_scope',
  'invalid_grant',
  'unsupported_grant_type',
  'invalid_request',
  'access_denied',
  'invalid_target',
]);

/**
 * The error code of a refusal: the body's `error` (RFC 6749 §5.2), or, for a 401 whose
 * `WWW-Authenticate` oauth4webapi reads first (invalid client authentication), the challenge's.
 */
function errorCodeOf(error: unknown): string | undefined {
  if (error instanceof client.ResponseBodyError) return error.error;
  if (error instanceof client.WWWAuthenticateChallengeError) {
    const found = error.cause.find((challenge) => typeof challenge.parameters.error === 'string');
    return found?.parameters.error;
  }
  return undefined;
}

/**
 * `refused`: what a refusal says before its cause (`the authorization server refused the
 * jwt-bearer grant`); `failed`: what a request that got no answer says (`the jwt-bearer token request failed`).
 */
export function grantError(refused: string, failed: string, error: unknown): BridgeError {
  if (error instanceof BridgeError) return error;
  const given = errorCodeOf(error);
  if (given !== undefined) {
    const code = safeCode(given);
    return new BridgeError('sign_in_error', {
      detail: NAMED.has(code) ? `${refused}: ${code}` : `${refused}: ${refusal(error)}`,
    });
  }
  return new BridgeError('sign_in_failed', { detail: `${failed}: ${refusal(error)}` });
}
