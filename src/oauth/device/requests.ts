/**
 * The two requests of the device grant (RFC 8628 §3.1 and §3.4, docs/sign-in.md#sign-in-device-code),
 * through openid-client with the configuration of flow.ts (the same client authentication, the
 * guarded fetch, DPoP proofs when the configuration carries them). The device code is a bearer
 * secret: it stays in the returned object, in memory, and no error or detail ever holds it.
 */
import * as client from 'openid-client';
import type { ServerMetadata } from 'openid-client';
import { BridgeError, isBridgeError } from '../../protocol/bridgeError.js';
import { isDpopBound } from '../dpop/index.js';
import { checkEndpoint } from '../endpoints.js';
import { codeError, refusal, safeCode } from '../flow.js';
import { acceptedTokens } from '../tokens.js';
import type { PollAnswer } from './poll.js';
import { defaultIntervalMs } from './pollRule.js';
import { verificationTarget, type VerificationTarget } from './verification.js';
import { checkSignInEndpoint } from '../authorizationUrl.js';

/** RFC 8628 §3.4: the grant type of the token requests. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** A verification URL or user code longer than this is refused (a terminal line, an elicitation). */
const MAX_URL_LENGTH = 2048;
const MAX_USER_CODE_LENGTH = 64;
/** Printable ASCII: nothing a terminal would render as a control sequence (RFC 8628 §6.1 codes are short). */
const USER_CODE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
/** An interval below this is taken as this: a server cannot make the bridge poll in a tight loop. */
const MIN_INTERVAL_MS = 1000;

/** What the device authorization request gave: what to show, and how to poll. */
export interface DeviceGrant {
  readonly target: VerificationTarget;
  /** A bearer secret (RFC 8628 §5.2): kept in memory only, never logged, never stored. */
  readonly deviceCode: string;
  readonly intervalMs: number;
  /** From `expires_in`: the grant ends then, whatever the time limit. */
  readonly expiresInMs: number;
}

const failed = (detail: string): BridgeError => new BridgeError('sign_in_failed', { detail });

/** The device authorization endpoint of the server, checked as every sign-in endpoint is. */
export function deviceEndpoint(as: ServerMetadata, mcpUrl: string): string {
  const endpoint = as.device_authorization_endpoint;
  if (endpoint === undefined) {
    throw failed(
      'the authorization server offers no device authorization grant (no device_authorization_endpoint in its metadata)',
    );
  }
  const check = checkEndpoint(endpoint, mcpUrl);
  if (!check.ok) throw failed(`the device authorization endpoint is not usable: ${check.reason}`);
  return endpoint;
}

/** Why the answer cannot be shown (never its values), or undefined. */
function answerProblem(answer: client.DeviceAuthorizationResponse, mcpUrl: string): string | undefined {
  const urls = [answer.verification_uri, answer.verification_uri_complete].filter(
    (url): url is string => url !== undefined,
  );
  for (const url of urls) {
    if (typeof url !== 'string' || url.length > MAX_URL_LENGTH) return 'a verification URL is not valid';
    const why = checkSignInEndpoint(url, mcpUrl);
    if (why !== undefined) return `a verification URL is not valid (${why})`;
  }
  const code = answer.user_code;
  if (typeof code !== 'string' || code.length > MAX_USER_CODE_LENGTH || !USER_CODE.test(code)) {
    return 'the user code is not printable text of at most 64 characters';
  }
  return undefined;
}

/** RFC 8628 §3.1–3.2: asks for a device code with `scope` and `resource`, as the browser sign-in does. */
export async function requestDeviceGrant(
  config: client.Configuration,
  input: { readonly resource: string; readonly scope: string | undefined; readonly mcpUrl: string },
): Promise<DeviceGrant> {
  const parameters: Record<string, string> = { resource: input.resource };
  if (input.scope !== undefined) parameters['scope'] = input.scope;
  let answer: client.DeviceAuthorizationResponse;
  try {
    answer = await client.initiateDeviceAuthorization(config, parameters);
  } catch (error) {
    throw failed(`the device authorization request failed: ${refusal(error)}`);
  }
  const problem = answerProblem(answer, input.mcpUrl);
  if (problem !== undefined) throw new BridgeError('sign_in_invalid_url', { detail: problem });
  const interval = typeof answer.interval === 'number' ? answer.interval * 1000 : defaultIntervalMs;
  return {
    target: verificationTarget(answer),
    deviceCode: answer.device_code,
    intervalMs: Math.max(MIN_INTERVAL_MS, interval),
    expiresInMs: answer.expires_in * 1000,
  };
}

/**
 * One token request with the device code (RFC 8628 §3.4): tokens, checked as every token
 * response is (tokens.ts), or the server's error code; any other failure rejects.
 */
export async function askForTokens(
  config: client.Configuration,
  input: { readonly deviceCode: string; readonly resource: string },
): Promise<PollAnswer> {
  try {
    const tokens = await client.genericGrantRequest(config, DEVICE_CODE_GRANT, {
      device_code: input.deviceCode,
      resource: input.resource,
    });
    return { kind: 'tokens', tokens: acceptedTokens(tokens, isDpopBound(config)) };
  } catch (error) {
    if (error instanceof client.ResponseBodyError) return { kind: 'error', code: safeCode(error.error) };
    throw isBridgeError(error) ? error : codeError(error);
  }
}
