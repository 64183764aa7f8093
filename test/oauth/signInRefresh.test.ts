/**
 * Tokens of the store in-process against oidc-provider: a stored token
 * used with no request, a silent refresh counted by the server, a refused refresh followed by a
 * sign-in in the browser, a newer record kept by the store, and a store that fails.
 */
import { describe, expect, it } from 'vitest';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { harnessOutput, secretsOf, signInSuite, writingThrough, post, request } from './signInHarness.js';
import { createMemoryStore } from '../../src/oauth/store/memoryStore.js';
import type { TokenRecord } from '../../src/oauth/store/types.js';
import { movableClock } from '../fixtures/oauth/movableClock.js';

const suite = signInSuite();
const { make, servers } = suite;

describe('tokens of the store', () => {
  it('uses a stored token valid beyond the margin with no request to the authorization server', async () => {
    const { as, mcp } = await servers();
    const store = createMemoryStore();
    const first = make({ config: { url: mcp.url }, store });
    expect((await request(suite.net.fetch, mcp.url, first.auth)).status).toBe(200);

    const second = make({ config: { url: mcp.url }, store });
    await second.auth.load();
    expect(second.auth.header()).toBe(first.auth.header());
    expect((await post(suite.net.fetch, mcp.url, second.auth)).status).toBe(200);
    expect(as.stats()).toEqual({
      authorizationRequests: 1,
      codeGrants: 1,
      refreshGrants: 0,
      registrations: 1,
    });
    expect(second.fetched).toEqual([]);
  });
});

describe('silent refresh', () => {
  it('refreshes an expired token once, with the resource, and opens no browser', async () => {
    const clock = movableClock();
    const { as, mcp } = await servers({ accessTokenTtlSeconds: 1, now: clock.now });
    const store = createMemoryStore();
    const first = make({ config: { url: mcp.url }, store });
    expect((await request(suite.net.fetch, mcp.url, first.auth)).status).toBe(200);
    const before = await store.read({
      url: mcp.url,
      identity: 'mcp-bridge-vscode|default|http://127.0.0.1:0/callback',
    });
    // The access token lives 1 s on the clock of the authorization server's storage: moved past it.
    clock.move(2_000);

    const second = make({ config: { url: mcp.url }, store });
    await second.auth.load();
    let changes = 0;
    const sub = second.auth.signedIn$.subscribe(() => (changes += 1));
    expect((await request(suite.net.fetch, mcp.url, second.auth)).status).toBe(200);
    sub.unsubscribe();

    expect(as.stats()).toEqual({
      authorizationRequests: 1,
      codeGrants: 1,
      refreshGrants: 1,
      registrations: 1,
    });
    expect(as.tokenRequests().map((t) => [t.grantType, t.resource])).toEqual([
      ['authorization_code', [mcp.url]],
      ['refresh_token', [mcp.url]],
    ]);
    expect(second.opened).toEqual([]);
    expect(second.signInLines).toEqual([]);
    expect(changes).toBe(1);
    const after = await store.read({
      url: mcp.url,
      identity: 'mcp-bridge-vscode|default|http://127.0.0.1:0/callback',
    });
    expect(after?.accessToken).not.toBe(before?.accessToken);
    expect(after?.savedAt).toBeGreaterThan(before?.savedAt ?? Infinity);
    expect(second.logs.map((l) => l.text)).toContain('the bridge refreshed the sign-in');
    expectNoSecrets(harnessOutput(second), [
      ...secretsOf(before),
      ...secretsOf(after),
      ...second.sentSecrets,
    ]);
  });

  it('signs in again in the browser when the server refuses the refresh', async () => {
    const clock = movableClock();
    const { as, mcp } = await servers({ accessTokenTtlSeconds: 1, now: clock.now });
    const store = createMemoryStore();
    const first = make({ config: { url: mcp.url }, store });
    expect((await request(suite.net.fetch, mcp.url, first.auth)).status).toBe(200);
    as.revokeRefreshTokens();
    // The access token lives 1 s on the clock of the authorization server's storage: moved past it.
    clock.move(2_000);

    const second = make({ config: { url: mcp.url }, store });
    await second.auth.load();
    expect((await request(suite.net.fetch, mcp.url, second.auth)).status).toBe(200);

    // The server counts granted refreshes only; the refused one is in its token request log.
    expect(as.stats()).toEqual({
      authorizationRequests: 2,
      codeGrants: 2,
      refreshGrants: 0,
      registrations: 1,
    });
    expect(as.tokenRequests().map((t) => [t.grantType, t.status])).toEqual([
      ['authorization_code', 200],
      ['refresh_token', 400],
      ['authorization_code', 200],
    ]);
    expect(second.opened).toHaveLength(1);
    expect(second.logs.map((l) => l.text)).toContain(
      'the authorization server refused the refresh (the refresh failed: HTTP status 400, invalid_grant); a new sign-in follows',
    );
    expectNoSecrets(harnessOutput(second), second.sentSecrets);
  });
});

describe('the store keeps the newer record', () => {
  it('uses the record the store returns when it holds a newer one', async () => {
    const { mcp } = await servers();
    const inner = createMemoryStore();
    let newer: TokenRecord | undefined;
    // Another process wrote a later record just before: the store keeps it and returns it.
    const store = writingThrough(inner, (record) => {
      newer = { ...record, accessToken: 'newer-token-of-another-process', savedAt: record.savedAt + 1 };
      return inner.write(newer);
    });
    const h = make({ config: { url: mcp.url }, store });
    const first = await post(suite.net.fetch, mcp.url, h.auth);
    await h.auth.challenge({
      status: 401,
      wwwAuthenticate: first.wwwAuthenticate,
      method: 'tools/list',
      signal: new AbortController().signal,
    });
    expect(newer).toBeDefined();
    expect(h.auth.header()).toBe('Bearer newer-token-of-another-process');
  });
});

describe('a token store that fails', () => {
  it('keeps the sign-in for the process and says so', async () => {
    const { mcp } = await servers();
    const inner = createMemoryStore();
    const store = writingThrough(inner, () => Promise.reject(new Error('the keychain is locked')));
    const h = make({ config: { url: mcp.url }, store });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.logs).toContainEqual({
      scope: 'oauth',
      level: 'warn',
      text: 'the token store did not keep the sign-in; it lasts until the end of the process',
    });
    expect(await inner.list()).toEqual([]);
  });
});
