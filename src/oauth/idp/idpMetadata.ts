/**
 * The endpoints of the IdP of `--grant id-jag` (docs/sign-in.md#sign-in-id-jag): `--idp-token-endpoint`
 * when given (no request at all), else OpenID Connect Discovery at
 * `<issuer>/.well-known/openid-configuration`, whose `issuer` must be exactly `--idp-issuer`
 * (simple string comparison, as for the authorization server: serverMetadata.ts). Every URL obeys
 * the rules of every sign-in URL (endpoints.ts checkEndpoint), and the requests go through the
 * guarded fetch of the sign-in (http.ts).
 */
import { BridgeError } from '../../protocol/bridgeError.js';
import { checkEndpoint } from '../endpoints.js';
import { getJson } from '../http.js';
import type { RenewalContext } from '../renewal.js';
import type { IdpSettings } from './types.js';

export interface IdpMetadata {
  readonly issuer: string;
  readonly tokenEndpoint: string;
  readonly authorizationEndpoint?: string;
  readonly revocationEndpoint?: string;
  readonly jwksUri?: string;
  /** `id_token_signing_alg_values_supported`: the algorithms an ID token may be signed with (default RS256). */
  readonly idTokenSigningAlgs?: readonly string[];
}

const failed = (detail: string): BridgeError => new BridgeError('sign_in_failed', { detail });

/** The URL of `name`, checked; undefined when the document has none and `required` is false. */
function endpointOf(value: unknown, name: string, mcpUrl: string, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  const check = checkEndpoint(value, mcpUrl);
  if (!check.ok) throw failed(`the ${name} of the IdP is not usable: ${check.reason}`);
  return value as string;
}

/** The OpenID Connect Discovery URL of an issuer: the well-known path appended to it, as OpenID Connect Discovery 1.0 does. */
export const openIdConfigurationUrl = (issuer: string): string =>
  `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

export async function discoverIdp(ctx: RenewalContext, idp: IdpSettings): Promise<IdpMetadata> {
  const mcpUrl = ctx.config.url;
  const issuer = checkEndpoint(idp.issuer, mcpUrl);
  if (!issuer.ok) throw failed(`the issuer of the IdP is not usable: ${issuer.reason}`);
  // With an ID token from a file, the token endpoint is all the grant needs; a browser sign-in at
  // the IdP needs its authorization endpoint and keys, so it always discovers.
  if (idp.tokenEndpoint !== undefined && idp.idTokenFile !== undefined) {
    const tokenEndpoint = endpointOf(idp.tokenEndpoint, 'token endpoint', mcpUrl, true) as string;
    return { issuer: idp.issuer, tokenEndpoint };
  }
  const got = await getJson(ctx.fetch, openIdConfigurationUrl(idp.issuer), ctx.held.signal, mcpUrl);
  if (!got.ok) throw failed(`the IdP has no OpenID configuration: ${got.reason}`);
  const { body } = got;
  if (body['issuer'] !== idp.issuer) throw failed('the OpenID configuration of the IdP names another issuer');
  const tokenEndpoint = endpointOf(
    idp.tokenEndpoint ?? body['token_endpoint'],
    'token endpoint',
    mcpUrl,
    true,
  ) as string;
  const optional = (key: string, name: string): string | undefined =>
    endpointOf(body[key], name, mcpUrl, false);
  const authorizationEndpoint = optional('authorization_endpoint', 'authorization endpoint');
  const revocationEndpoint = optional('revocation_endpoint', 'revocation endpoint');
  const jwksUri = optional('jwks_uri', 'JWKS URL');
  const algs = body['id_token_signing_alg_values_supported'];
  const idTokenSigningAlgs =
    Array.isArray(algs) && algs.every((alg) => typeof alg === 'string') ? algs : undefined;
  return {
    issuer: idp.issuer,
    tokenEndpoint,
    ...(authorizationEndpoint === undefined ? {} : { authorizationEndpoint }),
    ...(revocationEndpoint === undefined ? {} : { revocationEndpoint }),
    ...(jwksUri === undefined ? {} : { jwksUri }),
    ...(idTokenSigningAlgs === undefined ? {} : { idTokenSigningAlgs }),
  };
}
