/**
 * DPoP end to end against oidc-provider (features.dpop) and a protected MCP server that checks
 * each proof (test/fixtures/oauth/dpopCheck.ts: signature, typ, htm, htu, ath, the token's
 * `cnf.jkt`): sign-in, a second sign-in object on the same store (a restart) that reuses the key
 * and token without any sign-in, the nonces of both servers, and `--no-dpop`.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../src/oauth/store/memoryStore.js';
import { request, signInSuite } from '../signInHarness.js';

const suite = signInSuite();
const { make, servers } = suite;

describe('DPoP against oidc-provider', () => {
  it('binds the token to the key, proves each request, and a restart reuses the stored key', async () => {
    const { as, mcp } = await servers({ dpop: true }, { dpop: true });
    const store = createMemoryStore();
    const first = make({ config: { url: mcp.url }, store });
    const reply = await request(suite.net.fetch, mcp.url, first.auth);
    expect(reply.status).toBe(200);
    expect(first.auth.header()).toMatch(/^DPoP [!-~]+$/);
    expect(mcp.dpopResults()).toEqual(['ok']);

    const second = make({ config: { url: mcp.url }, store });
    await second.auth.load();
    expect(second.auth.header()).toBe(first.auth.header());
    const again = await request(suite.net.fetch, mcp.url, second.auth);
    expect(again.status).toBe(200);
    expect(mcp.dpopResults()).toEqual(['ok', 'ok']);
    expect(as.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1 });
    expect(second.fetched).toEqual([]);
    // The private key is in the store only: in no log line, sign-in line or error of either.
    const stored = await store.read({ url: mcp.url, identity: (await store.list())[0]?.identity ?? '' });
    const d = stored?.dpopKey?.jwk.d;
    expect(typeof d).toBe('string');
    const said = [first, second].flatMap((h) => [
      ...h.logs.map((line) => line.text),
      ...h.signInLines,
      ...h.errors,
    ]);
    expect(said.filter((text) => text.includes(d ?? 'no key'))).toEqual([]);
  });

  it('retries the token request and the MCP request once each with the servers nonces', async () => {
    const { as, mcp } = await servers({ dpop: 'nonce' }, { dpop: 'nonce' });
    const h = make({ config: { url: mcp.url } });
    const first = await request(suite.net.fetch, mcp.url, h.auth);
    // The helper retries once after the sign-in: that retry gets the resource's nonce challenge.
    expect(first.status).toBe(401);
    expect(first.wwwAuthenticate).toBe('DPoP error="use_dpop_nonce"');
    await h.auth.load();
    expect(h.auth.takeNonce?.({ wwwAuthenticate: first.wwwAuthenticate, dpopNonce: 'rs-nonce-1' })).toBe(
      'new',
    );
    const reply = await request(suite.net.fetch, mcp.url, h.auth);
    expect(reply.status).toBe(200);
    expect(mcp.dpopResults()).toEqual(['nonce', 'ok']);
    expect(as.tokenRequests().map((t) => [t.grantType, t.status])).toEqual([
      ['authorization_code', 400],
      ['authorization_code', 200],
    ]);
  });

  it('with --no-dpop, signs in without DPoP and the DPoP-only server refuses the token', async () => {
    const { mcp } = await servers({ dpop: true }, { dpop: true });
    const h = make({ config: { url: mcp.url, dpop: false } });
    const reply = await request(suite.net.fetch, mcp.url, h.auth);
    expect(h.auth.header()).toMatch(/^Bearer /);
    expect(reply.status).toBe(401);
    expect(mcp.dpopResults()).toEqual(['no proof']);
  });
});
