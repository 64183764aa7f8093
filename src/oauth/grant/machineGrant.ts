/**
 * The grants without a person (docs/sign-in.md#sign-in-grants): `client-credentials`
 * (RFC 6749 §4.4, the `io.modelcontextprotocol/oauth-client-credentials` extension), `jwt-bearer`
 * (RFC 7523 §2.1, workload identity federation, SEP-1933) and `id-jag` (a jwt-bearer grant whose
 * assertion the person's IdP issues by token exchange, docs/sign-in.md#sign-in-id-jag). No browser, no consent, no refresh
 * token: when the token expires, the grant runs again. Each credential goes only to the issuer of
 * `--client-issuer` (SECURITY.md "Grants without a person"): a server that names another
 * authorization server gets nothing.
 */
import * as client from 'openid-client';
import type { ServerMetadata } from 'openid-client';
import { BridgeError } from '../../protocol/bridgeError.js';
import { keyForSignIn, withDpop, isDpopBound } from '../dpop/index.js';
import { configuration, formBasic } from '../flow.js';
import { secretMethod } from '../registration.js';
import type { ChallengeInput, Discovered, RenewalContext } from '../renewal.js';
import { initialScope, stepUpScope } from '../scopes.js';
import type { ClientRegistration, TokenRecord } from '../store/types.js';
import { acceptedTokens, tokenRecord, type TokenResponse } from '../tokens.js';
import { clientKeyOf } from './clientKey.js';
import { readCredentialFile } from './credentialFile.js';
import { grantError } from './grantError.js';
import { exchangeForIdJag } from '../idp/exchange.js';
import { idJagRefusal, JWT_BEARER } from './idJag.js';

const SCOPE = 'oauth';

export { JWT_BEARER };

export type MachineGrant = 'client-credentials' | 'jwt-bearer' | 'id-jag';

/** The `grant_type` of each grant, as the token request and `grant_types_supported` name it. */
const GRANT_TYPE: Readonly<Record<MachineGrant, string>> = {
  'client-credentials': 'client_credentials',
  'jwt-bearer': JWT_BEARER,
  'id-jag': JWT_BEARER,
};

/** Why the server cannot run `grant`, or undefined (an absent list: the machine grants try). */
function grantRefusal(grant: MachineGrant, as: ServerMetadata): string | undefined {
  if (grant === 'id-jag') return idJagRefusal(as);
  const listed: unknown = as.grant_types_supported;
  return Array.isArray(listed) && !listed.includes(GRANT_TYPE[grant])
    ? `the authorization server does not list ${GRANT_TYPE[grant]} in grant_types_supported`
    : undefined;
}

/**
 * The assertion of a jwt-bearer grant: the platform's JWT of `--assertion-file`, read anew for
 * every grant (the platform rotates the file, docs/sign-in.md#sign-in-grants), or the ID-JAG the
 * IdP issues for this server and resource (docs/sign-in.md#sign-in-id-jag).
 */
async function assertionOf(
  grant: 'jwt-bearer' | 'id-jag',
  ctx: RenewalContext,
  found: Discovered,
  scope: string | undefined,
): Promise<string> {
  if (grant === 'id-jag') {
    return exchangeForIdJag(ctx, { audience: found.as.issuer, resource: found.resource, scope });
  }
  const path = ctx.config.assertionFile;
  if (path === undefined)
    throw new BridgeError('internal', { detail: 'jwt-bearer without --assertion-file' });
  return readCredentialFile({ option: '--assertion-file', path, privateToOwner: false });
}

/** The client and its authentication at the token endpoint (docs/sign-in.md#sign-in-grants). */
async function clientOf(
  ctx: RenewalContext,
  as: ServerMetadata,
): Promise<{ readonly registration: ClientRegistration; readonly config: client.Configuration }> {
  const { config } = ctx;
  const clientId = config.clientId;
  if (clientId === undefined) throw new BridgeError('internal', { detail: 'a grant without --client-id' });
  const build = (authMethod: ClientRegistration['authMethod'], auth: client.ClientAuth) => {
    const registration: ClientRegistration = { clientId, source: 'pre-registered', authMethod };
    return {
      registration,
      config: configuration(as, registration, undefined, ctx.fetch, config.url, ctx.held.signal, auth),
    };
  };
  if (config.clientKeyFile !== undefined) {
    const pem = await readCredentialFile({
      option: '--client-key-file',
      path: config.clientKeyFile,
      privateToOwner: true,
    });
    const { alg, key } = await clientKeyOf(pem);
    // oauth4webapi names an Ed25519 signature `Ed25519` (RFC 9864); servers of today know `EdDSA`.
    const options: client.ModifyAssertionOptions = {
      [client.modifyAssertion]: (header) => {
        if (alg === 'EdDSA') header.alg = 'EdDSA';
      },
    };
    return build('private_key_jwt', client.PrivateKeyJwt(key, options));
  }
  if (config.clientSecret !== undefined) {
    const method = secretMethod(as);
    return build(
      method,
      method === 'client_secret_basic'
        ? formBasic(config.clientSecret)
        : client.ClientSecretPost(config.clientSecret),
    );
  }
  return build('none', client.None());
}

/** The scope of the grant: as a person's sign-in would ask, without `offline_access` (no refresh token here). */
function scopeOf(ctx: RenewalContext, input: ChallengeInput, found: Discovered): string | undefined {
  return input.status === 403
    ? stepUpScope({
        granted: ctx.current()?.scope,
        challengeScope: input.bearer.scope,
        serverScopes: undefined,
      })
    : initialScope({
        challengeScope: input.bearer.scope,
        resourceScopes: found.scopesSupported,
        serverScopes: undefined,
      });
}

/**
 * Obtains and stores a token with `grant` at the authorization server discovery found: under the
 * sign-in lock like every sign-in (renewUnderLock.ts), with DPoP proofs when DPoP is on for that
 * server (docs/sign-in.md#sign-in-dpop).
 */
export async function obtainMachineToken(
  grant: MachineGrant,
  ctx: RenewalContext,
  input: ChallengeInput,
  found: Discovered,
  stored: TokenRecord | undefined,
): Promise<void> {
  const { as } = found;
  if (ctx.config.clientIssuer !== as.issuer) throw new BridgeError('issuer_not_registered');
  const refused = grantRefusal(grant, as);
  if (refused !== undefined) throw new BridgeError('sign_in_failed', { detail: refused });
  const scope = scopeOf(ctx, input, found);
  const made = await clientOf(ctx, as);
  const dpopKey = keyForSignIn(ctx.dpop, as);
  const cfg = withDpop(made.config, dpopKey, ctx.dpop, ctx.now);
  const parameters: Record<string, string> = { resource: found.resource };
  if (scope !== undefined) parameters['scope'] = scope;
  let response: TokenResponse;
  try {
    if (grant === 'client-credentials') {
      response = await client.clientCredentialsGrant(cfg, parameters);
    } else {
      const assertion = await assertionOf(grant, ctx, found, scope);
      response = await client.genericGrantRequest(cfg, JWT_BEARER, { ...parameters, assertion });
    }
  } catch (error) {
    throw grantError(
      `the authorization server refused the ${grant} grant`,
      `the ${grant} token request failed`,
      error,
    );
  }
  // Nothing to refresh with: the grant runs again when the token expires, so no refresh token is kept.
  const { refresh_token: _unused, ...kept } = acceptedTokens(response, isDpopBound(cfg));
  await ctx.save(
    tokenRecord({
      key: ctx.key,
      issuer: as.issuer,
      resource: found.resource,
      client: made.registration,
      response: kept,
      requestedScope: scope,
      dpopKey,
      grant,
      // A sign-in made from an IdP session ends with it (`logout --idp`, docs/sign-in.md#sign-in-idp-session).
      ...(grant === 'id-jag' && ctx.config.idp !== undefined ? { idpIssuer: ctx.config.idp.issuer } : {}),
      now: Math.max(ctx.now(), (stored?.savedAt ?? 0) + 1),
    }),
  );
  ctx.logger.log(SCOPE, 'info', `the bridge obtained a token with the ${grant} grant`);
}
