/**
 * The token exchange of `--grant id-jag` (docs/sign-in.md#sign-in-id-jag; RFC 8693, the
 * `io.modelcontextprotocol/enterprise-managed-authorization` extension): the ID token of the
 * person, read anew from `--id-token-file` for every exchange (or from the IdP session), goes to the
 * IdP's token endpoint, and comes back as an ID-JAG for the authorization server `audience` and the
 * MCP resource `resource`, both always sent. The IdP client authenticates with the secret of
 * `MCP_BRIDGE_IDP_CLIENT_SECRET` (client_secret_basic) or as a public client; that secret goes to
 * this endpoint only. No DPoP here: the ID-JAG is a grant, not an access token. Neither the ID token
 * nor the ID-JAG is ever logged, stored or put in an error.
 */
import * as client from 'openid-client';
import type { ServerMetadata } from 'openid-client';
import { BridgeError } from '../../protocol/bridgeError.js';
import { configuration, formBasic } from '../flow.js';
import { readCredentialFile } from '../grant/credentialFile.js';
import { grantError } from '../grant/grantError.js';
import type { RenewalContext } from '../renewal.js';
import type { ClientRegistration } from '../store/types.js';
import { discoverIdp, type IdpMetadata } from './idpMetadata.js';
import { idTokenFromSession } from './session.js';
import type { IdpSettings } from './types.js';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';

/** What the ID-JAG is for: the authorization server that accepts it and the MCP resource. */
export interface IdJagTarget {
  /** The issuer of the authorization server (the ID-JAG's `aud`). */
  readonly audience: string;
  readonly resource: string;
  readonly scope: string | undefined;
}

/** The ID token: from `--id-token-file`, read anew each time (a tool renews it), else the IdP session. */
async function idTokenOf(ctx: RenewalContext, idp: IdpSettings, metadata: IdpMetadata): Promise<string> {
  if (idp.idTokenFile === undefined) return idTokenFromSession(ctx, idp, metadata);
  // The person's own identity: private to its owner, as the client key is (SECURITY.md).
  return readCredentialFile({ option: '--id-token-file', path: idp.idTokenFile, privateToOwner: true });
}

/** The openid-client configuration of the IdP's token endpoint, with the IdP client's authentication. */
function idpConfiguration(
  ctx: RenewalContext,
  idp: IdpSettings,
  metadata: IdpMetadata,
): client.Configuration {
  const server: ServerMetadata = { issuer: metadata.issuer, token_endpoint: metadata.tokenEndpoint };
  const secret = idp.clientSecret;
  const registration: ClientRegistration = {
    clientId: idp.clientId,
    source: 'pre-registered',
    authMethod: secret === undefined ? 'none' : 'client_secret_basic',
  };
  const auth = secret === undefined ? client.None() : formBasic(secret);
  return configuration(server, registration, undefined, ctx.fetch, ctx.config.url, ctx.held.signal, auth);
}

/** Exchanges the person's ID token at the IdP for an ID-JAG for `target`. */
export async function exchangeForIdJag(ctx: RenewalContext, target: IdJagTarget): Promise<string> {
  const idp = ctx.config.idp;
  if (idp === undefined) throw new BridgeError('internal', { detail: 'id-jag without an IdP' });
  const metadata = await discoverIdp(ctx, idp);
  const parameters: Record<string, string> = {
    requested_token_type: ID_JAG_TOKEN_TYPE,
    audience: target.audience,
    resource: target.resource,
    subject_token: await idTokenOf(ctx, idp, metadata),
    subject_token_type: ID_TOKEN_TYPE,
  };
  if (target.scope !== undefined) parameters['scope'] = target.scope;
  let response: client.TokenEndpointResponse;
  try {
    response = await client.genericGrantRequest(
      idpConfiguration(ctx, idp, metadata),
      TOKEN_EXCHANGE,
      parameters,
    );
  } catch (error) {
    throw grantError('the IdP refused the token exchange', 'the token exchange at the IdP failed', error);
  }
  if (response.issued_token_type !== ID_JAG_TOKEN_TYPE || typeof response.access_token !== 'string') {
    throw new BridgeError('sign_in_failed', { detail: 'the IdP did not issue an ID-JAG' });
  }
  return response.access_token;
}
