/**
 * The IdP session of `--grant id-jag` (docs/sign-in.md#sign-in-idp-session), in one process:
 * idTokenFromSession against the hand IdP, with the memory store and the process lock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { discoverIdp } from '../../../src/oauth/idp/idpMetadata.js';
import { idTokenFromSession } from '../../../src/oauth/idp/session.js';
import type { IdpSettings } from '../../../src/oauth/idp/types.js';
import { markedForRefresh } from '../../../src/oauth/refreshMark.js';
import { createMemoryStore, createProcessLock } from '../../../src/oauth/store/memoryStore.js';
import type { TokenStore } from '../../../src/oauth/store/types.js';
import { isBridgeError } from '../../../src/protocol/bridgeError.js';
import { idpTestContext } from '../../fixtures/oauth/idpContext.js';
import { startHandIdp } from '../../fixtures/oauth/handIdp.js';
import type { HandIdp, HandIdpOptions } from '../../fixtures/oauth/handIdp.js';
import { expectNoSecrets } from '../../helpers/secretScan.js';

const MCP_URL = 'http://127.0.0.1:9/mcp';
const SESSION_KEY_IDENTITY = 'mcp-bridge-vscode|default|idp|client=idp-client';

let idp: HandIdp | undefined;
afterEach(async () => {
  await idp?.close();
  idp = undefined;
});

async function setUp(options: Partial<HandIdpOptions> = {}, signInTimeoutMs?: number) {
  idp = await startHandIdp({ clientId: 'idp-client', ...options });
  const store: TokenStore = createMemoryStore();
  const test = idpTestContext({
    store,
    lock: createProcessLock(),
    mcpUrl: MCP_URL,
    ...(signInTimeoutMs === undefined ? {} : { signInTimeoutMs }),
  });
  const settings: IdpSettings = { issuer: idp.issuer, clientId: 'idp-client' };
  const metadata = await discoverIdp(test.ctx, settings);
  const run = () => idTokenFromSession(test.ctx, settings, metadata);
  return { idp, store, test, run, issuer: idp.issuer };
}

const errorOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    return isBridgeError(error) ? `${error.code}: ${error.detail ?? ''}` : `other: ${String(error)}`;
  }
  return 'resolved';
};

describe('idTokenFromSession', () => {
  it('signs in at the IdP once, stores the session, and reuses its fresh ID token', async () => {
    const { idp, store, test, run, issuer } = await setUp();
    const first = await run();
    const second = await run();
    expect(second).toBe(first);
    expect(idp.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1, refreshGrants: 0 });
    expect(test.signInLines).toHaveLength(1);
    expect(test.callbacks).toEqual([200]);
    const record = await store.read({ url: issuer, identity: SESSION_KEY_IDENTITY });
    expect(record?.idToken).toBe(first);
    expect(record?.refreshToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(record?.client).toEqual({ clientId: 'idp-client', source: 'pre-registered', authMethod: 'none' });
    // The sign-in line is the only place the authorization URL appears; no token is logged.
    expectNoSecrets({ lines: [], stderr: test.logs }, idp.issuedSecrets());
  });

  it('spends the IdP refresh token when the stored ID token expires within the margin', async () => {
    // 30 s: valid for openid-client, but within the one-minute margin of the session.
    const { idp, store, test, run, issuer } = await setUp({ idTokenTtlSeconds: 30 });
    const first = await run();
    const before = await store.read({ url: issuer, identity: SESSION_KEY_IDENTITY });
    const second = await run();
    expect(second).not.toBe(first);
    expect(idp.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1, refreshGrants: 1 });
    const after = await store.read({ url: issuer, identity: SESSION_KEY_IDENTITY });
    expect(after?.idToken).toBe(second);
    expect(after?.refreshToken).not.toBe(before?.refreshToken);
    expect(test.logs).toContain('oauth: info: the bridge refreshed the IdP session');
  });

  it('never sends an IdP refresh token again whose refresh got no answer: a new sign-in follows', async () => {
    const { idp, store, test, run, issuer } = await setUp({ idTokenTtlSeconds: 30 });
    await run();
    const stored = await store.read({ url: issuer, identity: SESSION_KEY_IDENTITY });
    if (stored?.refreshToken === undefined) throw new Error('no session stored');
    await store.write(markedForRefresh({ ...stored, refreshToken: stored.refreshToken }));
    await run();
    expect(idp.stats()).toMatchObject({ authorizationRequests: 2, codeGrants: 2, refreshGrants: 0 });
    expect(test.logs).toContain(
      'oauth: warn: a refresh of the IdP session got no answer (a bridge stopped during it): its refresh token is not sent again, a new sign-in at the IdP follows',
    );
  });

  it('signs in at the IdP again when the IdP refuses the refresh', async () => {
    const { idp, store, test, run, issuer } = await setUp({ idTokenTtlSeconds: 30 });
    await run();
    const stored = await store.read({ url: issuer, identity: SESSION_KEY_IDENTITY });
    const form = new URLSearchParams({ token: stored?.refreshToken ?? '', client_id: 'idp-client' });
    expect((await fetch(`${issuer}/revoke`, { method: 'POST', body: form })).status).toBe(200);
    await run();
    expect(idp.stats()).toMatchObject({ authorizationRequests: 2, codeGrants: 2, refreshGrants: 0 });
    expect(test.logs).toContain(
      'oauth: warn: the IdP refused the refresh of the IdP session (the refresh failed: HTTP status 400, invalid_grant); a new sign-in at the IdP follows',
    );
  });

  it('signs in at the IdP again when the refresh brings no ID token', async () => {
    const { idp, run } = await setUp({ idTokenTtlSeconds: 30, refreshWithoutIdToken: true });
    await run();
    await run();
    expect(idp.stats()).toMatchObject({ authorizationRequests: 2, codeGrants: 2, refreshGrants: 1 });
  });

  it('refuses an ID token whose nonce is not the one sent, and stores nothing', async () => {
    const { idp, store, run } = await setUp({ wrongNonce: true });
    expect(await errorOf(run())).toBe('sign_in_failed: the nonce of the ID token is wrong');
    expect(idp.stats().codeGrants).toBe(1);
    expect(await store.list()).toEqual([]);
  });

  it.each([
    [{ aud: 'another-client' }, 'sign_in_failed: the ID token is not for the IdP client'],
    [{ iss: 'https://another-idp.example' }, 'sign_in_failed: the ID token is of another issuer'],
    [{ exp: 1_000_000_000 }, 'sign_in_failed: the ID token has expired'],
  ])('refuses an ID token with %o, and stores nothing', async (claims, expected) => {
    const { store, run } = await setUp({ idTokenClaims: claims });
    expect(await errorOf(run())).toBe(expected);
    expect(await store.list()).toEqual([]);
  });

  it('refuses an ID token signed with a key the IdP does not publish', async () => {
    const { store, run } = await setUp({ badSignature: true });
    expect(await errorOf(run())).toBe('sign_in_failed: the signature of the ID token is not valid');
    expect(await store.list()).toEqual([]);
  });

  it('refuses a redirect with another state: no code is exchanged, the sign-in ends unanswered', async () => {
    const { idp, store, test, run } = await setUp({ wrongState: true }, 1500);
    expect(await errorOf(run())).toBe('sign_in_timeout: 1.5 s');
    expect(test.callbacks).toEqual([400]);
    expect(test.logs).toContain(
      'oauth: warn: the loopback receiver refused a redirect with a wrong or missing state',
    );
    expect(idp.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 0 });
    expect(await store.list()).toEqual([]);
  });

  it('fails closed with the IdP error code when the user denies the sign-in', async () => {
    const { idp, store, test, run } = await setUp({ deny: true });
    expect(await errorOf(run())).toBe('sign_in_denied: access_denied');
    expect(test.logs).toContain('oauth: warn: The authorization server refused the access.');
    expect(idp.stats().codeGrants).toBe(0);
    expect(await store.list()).toEqual([]);
  });
});
