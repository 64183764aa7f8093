/**
 * The requests of the IdP session at the IdP (docs/sign-in.md#sign-in-idp-session), through
 * openid-client as flow.ts does for the servers: the browser sign-in (OpenID Connect authorization
 * code with PKCE, `state` and `nonce`) on the loopback receiver and start URL of every sign-in
 * (interactive.ts), and the refresh (`grant_type=refresh_token`, scope `openid`). Every ID token
 * is validated by openid-client: its signature with the IdP's JWKS (non-repudiation checks), the
 * issuer, the audience (the IdP client ID), the expiry, and at sign-in the nonce.
 */
import * as client from 'openid-client';
import type { ServerMetadata } from 'openid-client';
import { BridgeError } from '../../protocol/bridgeError.js';
import { configuration, refusal } from '../flow.js';
import type { AuthorizationRequest } from '../flow.js';
import { signInInteractively } from '../interactive.js';
import type { RedirectResult } from '../receiver.js';
import type { RenewalContext } from '../renewal.js';
import type { ClientRegistration, LockHold } from '../store/types.js';
import type { TokenResponse } from '../tokens.js';
import type { IdpMetadata } from './idpMetadata.js';
import type { IdpSettings } from './types.js';

/** The scope of every request at the IdP: an ID token, nothing more. */
export const IDP_SCOPE = 'openid';

const failed = (detail: string): BridgeError => new BridgeError('sign_in_failed', { detail });

/** A token response of the IdP with its validated ID token; `expiresAt` is the ID token's (epoch ms). */
export interface IdpTokens {
  readonly response: TokenResponse;
  readonly idToken: string;
  readonly expiresAt: number;
}

/** The IdP client: `client_secret_basic` with MCP_BRIDGE_IDP_CLIENT_SECRET, else a public client. */
export const idpClient = (idp: IdpSettings): ClientRegistration => ({
  clientId: idp.clientId,
  source: 'pre-registered',
  authMethod: idp.clientSecret === undefined ? 'none' : 'client_secret_basic',
});

/** The openid-client configuration of the IdP; refused without a JWKS to check ID tokens with. */
export function idpConfiguration(
  ctx: RenewalContext,
  idp: IdpSettings,
  metadata: IdpMetadata,
  stop: AbortSignal,
): client.Configuration {
  if (metadata.jwksUri === undefined)
    throw failed('the IdP names no jwks_uri: its ID tokens cannot be checked');
  const as: ServerMetadata = {
    issuer: metadata.issuer,
    token_endpoint: metadata.tokenEndpoint,
    jwks_uri: metadata.jwksUri,
    ...(metadata.idTokenSigningAlgs === undefined
      ? {}
      : { id_token_signing_alg_values_supported: [...metadata.idTokenSigningAlgs] }),
    ...(metadata.authorizationEndpoint === undefined
      ? {}
      : { authorization_endpoint: metadata.authorizationEndpoint }),
    ...(metadata.revocationEndpoint === undefined
      ? {}
      : { revocation_endpoint: metadata.revocationEndpoint }),
  };
  const config = configuration(as, idpClient(idp), idp.clientSecret, ctx.fetch, ctx.config.url, stop);
  client.enableNonRepudiationChecks(config);
  return config;
}

/** The messages of an error and its causes, for the mapping below (never logged as they are). */
function messages(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth += 1) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(' | ');
}

/** The cause of a refused ID token, or undefined when the error is not about the ID token. */
export function idTokenRefusal(error: unknown): BridgeError | undefined {
  if (error instanceof BridgeError) return error;
  const text = messages(error);
  if (text.includes('"nonce"')) return failed('the nonce of the ID token is wrong');
  if (text.includes('"aud"') || text.includes('"azp"'))
    return failed('the ID token is not for the IdP client');
  if (text.includes('JWT "iss"')) return failed('the ID token is of another issuer');
  if (text.includes('"exp"')) return failed('the ID token has expired');
  if (text.toLowerCase().includes('signature')) return failed('the signature of the ID token is not valid');
  if (text.includes('JWT') || text.includes('id_token') || text.includes('ID Token'))
    return failed('the ID token is not valid');
  return undefined;
}

/** The validated ID token of a token response of openid-client. */
function idTokenOf(tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers): IdpTokens {
  const claims = tokens.claims();
  if (tokens.id_token === undefined || claims === undefined) throw failed('the IdP sent no ID token');
  return { response: tokens, idToken: tokens.id_token, expiresAt: claims.exp * 1000 };
}

/**
 * A browser sign-in at the IdP. `held` is the hold of the IdP session's lock: a lost hold ends the
 * sign-in, and no lost hold shows one (docs/sign-in.md#sign-in-lock).
 */
export async function signInAtIdp(
  ctx: RenewalContext,
  config: client.Configuration,
  held: LockHold,
): Promise<IdpTokens> {
  let got: IdpTokens | undefined;
  const exchange = async (
    cfg: client.Configuration,
    redirect: RedirectResult,
    request: AuthorizationRequest,
  ): Promise<TokenResponse> => {
    try {
      const tokens = await client.authorizationCodeGrant(cfg, redirect.callbackUrl, {
        pkceCodeVerifier: request.verifier,
        expectedState: request.state,
        expectedNonce: request.nonce ?? '',
        idTokenExpected: true,
      });
      got = idTokenOf(tokens);
      return tokens;
    } catch (error) {
      // An error of the authorization response (access_denied…) or the token endpoint: the
      // sign-in maps it (flow.ts codeError); a refused ID token has its own cause.
      if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError)
        throw error;
      throw idTokenRefusal(error) ?? error;
    }
  };
  await signInInteractively(ctx.settings, ctx.interactiveDeps, ctx.state, {
    prepare: () => Promise.resolve(config),
    mcpUrl: ctx.config.url,
    resource: undefined,
    scope: IDP_SCOPE,
    nonce: true,
    exchange,
    signal: AbortSignal.any([ctx.held.signal, held.signal]),
    confirm: () => held.confirm(),
  });
  if (got === undefined) throw failed('the IdP sent no ID token');
  return got;
}

/** A refresh at the IdP; rejects (sign_in_failed) when it is refused or brings no valid ID token. */
export async function refreshAtIdp(config: client.Configuration, refreshToken: string): Promise<IdpTokens> {
  let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
  try {
    tokens = await client.refreshTokenGrant(config, refreshToken, { scope: IDP_SCOPE });
  } catch (error) {
    throw idTokenRefusal(error) ?? failed(`the refresh failed: ${refusal(error)}`);
  }
  if (tokens.id_token === undefined) throw failed('the IdP sent no ID token with the refresh');
  return idTokenOf(tokens);
}
