/**
 * The metadata of the IdP of `--grant id-jag` (docs/sign-in.md#sign-in-id-jag): OpenID
 * discovery at the issuer with the checks of every authorization server (serverMetadata.ts: the
 * exact issuer, PKCE S256, sign-in URLs only), its JWKS URL checked the same way, and the token
 * endpoint of `--idp-token-endpoint` when given.
 */
import { BridgeError } from '../../protocol/bridgeError.js';
import { checkEndpoint } from '../endpoints.js';
import type { RenewalContext } from '../renewal.js';
import { discoverServer } from '../serverMetadata.js';
import type { IdpSettings } from './types.js';

export interface IdpMetadata {
  issuer: string;
  tokenEndpoint: string;
  authorizationEndpoint?: string;
  revocationEndpoint?: string;
  jwksUri?: string;
  /** `id_token_signing_alg_values_supported`: the algorithms an ID token may be signed with (default RS256). */
  idTokenSigningAlgs?: readonly string[];
}

const failed = (detail: string): BridgeError => new BridgeError('sign_in_failed', { detail });

/** The optional endpoint `name` of the document, checked as a sign-in URL; undefined when absent. */
function optionalEndpoint(body: Record<string, unknown>, name: string, mcpUrl: string): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  const check = checkEndpoint(value, mcpUrl);
  if (!check.ok) throw failed(`the ${name.replaceAll('_', ' ')} of the IdP is not usable: ${check.reason}`);
  return value as string;
}

export async function discoverIdp(ctx: RenewalContext, idp: IdpSettings): Promise<IdpMetadata> {
  const mcpUrl = ctx.config.url;
  const found = await discoverServer({
    fetch: ctx.fetch,
    issuer: idp.issuer,
    mcpUrl,
    signal: ctx.held.signal,
  });
  const body = found.metadata as unknown as Record<string, unknown>;
  let tokenEndpoint = found.metadata.token_endpoint ?? '';
  if (idp.tokenEndpoint !== undefined) {
    const check = checkEndpoint(idp.tokenEndpoint, mcpUrl);
    if (!check.ok) throw failed(`the token endpoint of --idp-token-endpoint is not usable: ${check.reason}`);
    tokenEndpoint = idp.tokenEndpoint;
  }
  const authorizationEndpoint = optionalEndpoint(body, 'authorization_endpoint', mcpUrl);
  const revocationEndpoint = optionalEndpoint(body, 'revocation_endpoint', mcpUrl);
  const jwksUri = optionalEndpoint(body, 'jwks_uri', mcpUrl);
  const algs = body['id_token_signing_alg_values_supported'];
  const idTokenSigningAlgs =
    Array.isArray(algs) && algs.every((alg) => typeof alg === 'string') ? algs : undefined;
  return {
    issuer: found.metadata.issuer,
    tokenEndpoint,
    ...(authorizationEndpoint === undefined ? {} : { authorizationEndpoint }),
    ...(revocationEndpoint === undefined ? {} : { revocationEndpoint }),
    ...(jwksUri === undefined ? {} : { jwksUri }),
    ...(idTokenSigningAlgs === undefined ? {} : { idTokenSigningAlgs }),
  };
}
