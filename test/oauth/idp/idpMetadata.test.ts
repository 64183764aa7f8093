/**
 * The metadata of the IdP (src/oauth/idp/idpMetadata.ts, docs/sign-in.md#sign-in-idp-session):
 * OpenID discovery at the issuer, `--idp-token-endpoint`, and an IdP without a JWKS refused
 * before any sign-in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { discoverIdp } from '../../../src/oauth/idp/idpMetadata.js';
import { idTokenFromSession } from '../../../src/oauth/idp/session.js';
import { createMemoryStore, createProcessLock } from '../../../src/oauth/store/memoryStore.js';
import { idpTestContext } from '../../fixtures/oauth/idpContext.js';
import { startHandIdp } from '../../fixtures/oauth/handIdp.js';
import type { HandIdp } from '../../fixtures/oauth/handIdp.js';

let idp: HandIdp | undefined;
afterEach(async () => {
  await idp?.close();
  idp = undefined;
});

const context = () =>
  idpTestContext({ store: createMemoryStore(), lock: createProcessLock(), mcpUrl: 'http://127.0.0.1:9/mcp' });

describe('discoverIdp', () => {
  it('reads the OpenID configuration of the issuer', async () => {
    idp = await startHandIdp({ clientId: 'idp-client' });
    const { ctx } = context();
    expect(await discoverIdp(ctx, { issuer: idp.issuer, clientId: 'idp-client' })).toEqual({
      issuer: idp.issuer,
      tokenEndpoint: `${idp.issuer}/token`,
      authorizationEndpoint: `${idp.issuer}/authorize`,
      revocationEndpoint: `${idp.issuer}/revoke`,
      jwksUri: `${idp.issuer}/jwks`,
      idTokenSigningAlgs: ['ES256'],
    });
  });

  it('takes the token endpoint of --idp-token-endpoint', async () => {
    idp = await startHandIdp({ clientId: 'idp-client' });
    const { ctx } = context();
    const found = await discoverIdp(ctx, {
      issuer: idp.issuer,
      clientId: 'idp-client',
      tokenEndpoint: `${idp.issuer}/other-token`,
    });
    expect(found.tokenEndpoint).toBe(`${idp.issuer}/other-token`);
  });

  it('an IdP without a jwks_uri is refused before any sign-in', async () => {
    idp = await startHandIdp({ clientId: 'idp-client', noJwks: true });
    const { ctx, signInLines } = context();
    const settings = { issuer: idp.issuer, clientId: 'idp-client' };
    await expect(idTokenFromSession(ctx, settings, await discoverIdp(ctx, settings))).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the IdP names no jwks_uri: its ID tokens cannot be checked',
    });
    expect(signInLines).toEqual([]);
    expect(idp.stats().authorizationRequests).toBe(0);
  });
});
