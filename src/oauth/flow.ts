/**
 * The OAuth requests of the sign-in, through openid-client 6: authorization
 * code with PKCE S256 and `state`, the resource indicator (RFC 8707) on the authorization, token
 * and refresh requests, RFC 9207 `iss` checked by oauth4webapi inside openid-client, and the
 * errors of each step mapped to the causes of docs/errors.md#errors-sign-in. The metadata comes
 * from our own discovery (resourceMetadata.ts, serverMetadata.ts), never from openid-client's.
 */
import * as client from 'openid-client';
import type { ServerMetadata } from 'openid-client';
import { BridgeError } from '../protocol/bridgeError.js';
import { guardedFetch, REQUEST_TIMEOUT_MS, signInHttpReason } from './http.js';
import type { Fetch } from './http.js';
import { checkEndpoint, isPlainHttp } from './endpoints.js';
import type { RedirectResult } from './receiver.js';
import type { ClientRegistration } from './store/types.js';
import { isDpopBound } from './dpop/index.js';
import { acceptedTokens } from './tokens.js';
import type { TokenResponse } from './tokens.js';

/**
 * True when some endpoint of the server is `http` and every `http` one is on a loopback host, with
 * a loopback MCP URL. Discovery already refused any other `http`; this holds
 * on its own too.
 */
export const needsInsecure = (as: ServerMetadata, mcpUrl: string, extra: readonly string[] = []): boolean => {
  const plain = [
    as.issuer,
    as.authorization_endpoint,
    as.token_endpoint,
    as.registration_endpoint,
    as.revocation_endpoint,
    ...extra,
  ].filter((url): url is string => typeof url === 'string' && isPlainHttp(url));
  return plain.length > 0 && plain.every((url) => checkEndpoint(url, mcpUrl).ok);
};

/**
 * openid-client's fetch: the upstream's fetch, refusing every URL that is not a sign-in URL.
 * `stop` (the hold of the sign-in lock, hold.ts) ends a request as well as openid-client's limit.
 */
const customFetch = (fetch: Fetch, mcpUrl: string, stop?: AbortSignal): client.CustomFetch => {
  const guarded = guardedFetch(fetch, mcpUrl);
  return (url, options) => {
    const own = options.signal as AbortSignal | undefined | null;
    const signal = stop === undefined ? own : own == null ? stop : AbortSignal.any([own, stop]);
    return guarded(url, { ...(options as RequestInit), ...(signal == null ? {} : { signal }) });
  };
};

/** One value encoded as `application/x-www-form-urlencoded` writes it (`-._*` stay as they are). */
export const formEncode = (value: string): string => new URLSearchParams([['', value]]).toString().slice(1);

/**
 * HTTP Basic client authentication (RFC 6749 §2.3.1): the client id and secret, each form
 * encoded, joined by `:`, in base64. oauth4webapi's own encoding also escapes `-`, `.`, `!` and
 * more (`pre%2Dregistered`), which a server that does not form-decode the credentials compares as
 * another client id; a server that does decode them reads the same value either way
 * (SECURITY.md "Tolerances of the sign-in").
 */
export function formBasic(secret: string | undefined): client.ClientAuth {
  if (secret === undefined)
    throw new BridgeError('internal', { detail: 'client_secret_basic without a secret' });
  return (_as, metadata, _body, headers) => {
    const pair = `${formEncode(metadata.client_id)}:${formEncode(secret)}`;
    headers.set('authorization', `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`);
  };
}

/** The client authentication of the token endpoint, as the client was registered (docs/sign-in.md#sign-in-registration). */
function clientAuth(registration: ClientRegistration, secret: string | undefined): client.ClientAuth {
  switch (registration.authMethod) {
    case 'client_secret_basic':
      return formBasic(secret);
    case 'client_secret_post':
      return client.ClientSecretPost(secret);
    default:
      return client.None();
  }
}

/**
 * The openid-client configuration of one server and client. `secret` is the client's own secret:
 * a dynamic client's stored one, or `MCP_BRIDGE_CLIENT_SECRET` for the issuer of
 * `--client-issuer` only (the caller decides). `stop` aborts its requests (a lost lock).
 */
export function configuration(
  as: ServerMetadata,
  registration: ClientRegistration,
  secret: string | undefined,
  fetch: Fetch,
  mcpUrl: string,
  stop?: AbortSignal,
  /** The client authentication of a grant that brings its own (grant/machineGrant.ts). */
  auth?: client.ClientAuth,
): client.Configuration {
  const config = new client.Configuration(
    as,
    registration.clientId,
    { token_endpoint_auth_method: registration.authMethod },
    auth ?? clientAuth(registration, secret),
  );
  config[client.customFetch] = customFetch(fetch, mcpUrl, stop);
  config.timeout = REQUEST_TIMEOUT_MS / 1000;
  // http only where discovery allowed it (loopback hosts, loopback MCP URL: docs/sign-in.md#sign-in-urls);
  // guardedFetch refuses any other http URL on top.
  if (needsInsecure(as, mcpUrl)) client.allowInsecureRequests(config);
  return config;
}

/** The PKCE verifier, `state` and the authorization URL of one sign-in; `nonce` for an OpenID one. */
export interface AuthorizationRequest {
  readonly url: string;
  readonly state: string;
  readonly verifier: string;
  readonly nonce?: string;
}

export async function authorizationRequest(
  config: client.Configuration,
  input: {
    readonly redirectUri: string;
    /** Undefined at an IdP (docs/sign-in.md#sign-in-idp-session): no resource indicator. */
    readonly resource: string | undefined;
    readonly scope: string | undefined;
    /** An OpenID Connect sign-in: a `nonce` the ID token must carry (idp/idpSignIn.ts). */
    readonly nonce?: boolean;
  },
): Promise<AuthorizationRequest> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = input.nonce === true ? client.randomNonce() : undefined;
  const parameters: Record<string, string> = {
    redirect_uri: input.redirectUri,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  };
  if (input.resource !== undefined) parameters['resource'] = input.resource;
  if (input.scope !== undefined) parameters['scope'] = input.scope;
  if (nonce !== undefined) parameters['nonce'] = nonce;
  const url = client.buildAuthorizationUrl(config, parameters).href;
  return nonce === undefined ? { url, state, verifier } : { url, state, verifier, nonce };
}

/** An error code of the authorization server, fit for a log line and a detail. */
export const safeCode = (code: unknown): string =>
  typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code) ? code : 'not valid';

const statusOf = (error: unknown): number | undefined => {
  const value = (error as { status?: unknown; cause?: { status?: unknown } } | undefined) ?? {};
  const status = typeof value.status === 'number' ? value.status : value.cause?.status;
  return typeof status === 'number' ? status : undefined;
};

/** `HTTP status N, <error code>` of a refused request, for a detail (never a body). */
export function refusal(error: unknown): string {
  // A request the guard refused, or a response over the size limit (http.ts): its own reason.
  const guarded = signInHttpReason(error);
  if (guarded !== undefined) return guarded;
  const status = statusOf(error);
  const parts = status === undefined ? [] : [`HTTP status ${status}`];
  if (error instanceof client.ResponseBodyError) parts.push(safeCode(error.error));
  return parts.length === 0 ? 'the request failed' : parts.join(', ');
}

/**
 * The authorization response and the token exchange. oauth4webapi checks, before anything else
 * of the response (docs/sign-in.md#sign-in-receiver): `iss` missing while the server advertises
 * `authorization_response_iss_parameter_supported` -> refused; `iss` present and not exactly the
 * issuer of the metadata (no normalisation) -> refused, advertised or not; then `state`; only
 * then an `error` of the response is acted upon. Rejects with openid-client's error, which
 * {@link codeError} maps to its cause (and {@link refusedClientCode} reads first).
 */
export async function exchangeCode(
  config: client.Configuration,
  input: {
    readonly redirect: RedirectResult;
    readonly request: AuthorizationRequest;
    readonly resource: string | undefined;
  },
): Promise<TokenResponse> {
  const tokens = await client.authorizationCodeGrant(
    config,
    input.redirect.callbackUrl,
    { pkceCodeVerifier: input.request.verifier, expectedState: input.request.state },
    input.resource === undefined ? {} : { resource: input.resource },
  );
  return acceptedTokens(tokens, isDpopBound(config));
}

/**
 * `invalid_client` or `unauthorized_client` when an error of {@link exchangeCode} is the
 * authorization server refusing the client: in the authorization response (RFC 6749 §4.1.2.1)
 * or from the token endpoint (docs/notifications.md#notifications-filter). Undefined for any other error.
 */
export function refusedClientCode(error: unknown): 'invalid_client' | 'unauthorized_client' | undefined {
  const code =
    error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError
      ? error.error
      : undefined;
  return code === 'invalid_client' || code === 'unauthorized_client' ? code : undefined;
}

/** True when oauth4webapi refused the `token_type` of a token response (neither bearer nor dpop). */
function unknownTokenType(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    if (current.name === 'UnsupportedOperationError' && current.message.includes('token_type')) return true;
    current = current.cause;
  }
  return false;
}

const NOT_BEARER = 'the token type is not Bearer; nothing was stored';

/** Maps an error of {@link exchangeCode} to its cause. */
export function codeError(error: unknown): BridgeError {
  if (unknownTokenType(error)) return new BridgeError('sign_in_failed', { detail: NOT_BEARER });
  if (error instanceof client.AuthorizationResponseError) {
    const code = safeCode(error.error);
    return code === 'access_denied'
      ? new BridgeError('sign_in_denied', { detail: 'access_denied' })
      : new BridgeError('sign_in_error', { detail: `the error code is ${code}` });
  }
  const inner = (error as { cause?: unknown } | undefined)?.cause;
  const text = inner instanceof Error ? inner.message : '';
  if (text.includes('"iss"')) {
    return new BridgeError('sign_in_failed', {
      detail: text.includes('missing')
        ? 'the authorization response has no iss, which the authorization server promised'
        : 'the iss of the authorization response is not the issuer of the authorization server',
    });
  }
  if (text.includes('"state"')) {
    return new BridgeError('sign_in_failed', { detail: 'the state of the authorization response is wrong' });
  }
  return new BridgeError('sign_in_failed', { detail: `the token request failed: ${refusal(error)}` });
}

/** A refresh (RFC 6749 §6) with the resource indicator; rejects when the server refuses it. */
export async function refresh(
  config: client.Configuration,
  input: { readonly refreshToken: string; readonly resource: string },
): Promise<TokenResponse> {
  let tokens: TokenResponse;
  try {
    tokens = await client.refreshTokenGrant(config, input.refreshToken, { resource: input.resource });
  } catch (error) {
    if (unknownTokenType(error)) throw new BridgeError('sign_in_failed', { detail: NOT_BEARER });
    throw new BridgeError('sign_in_failed', { detail: `the refresh failed: ${refusal(error)}` });
  }
  return acceptedTokens(tokens, isDpopBound(config));
}
