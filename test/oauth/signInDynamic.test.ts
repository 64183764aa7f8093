/**
 * The whole sign-in in-process against oidc-provider (test/fixtures/oauth/authServer.ts) and the
 * protected MCP fixture: dynamic client registration, the browser before `initialized`, the token
 * on the retry, step-up, migration to another server, one sign-in for several waiters. Every log
 * line, sign-in line and error is scanned for secrets after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileLock } from '../../src/oauth/store/lock.js';
import { startAuthServer } from '../fixtures/oauth/authServer.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { harnessOutput, secretsOf, signInSuite, post, request } from './signInHarness.js';
import { createMemoryStore, createProcessLock } from '../../src/oauth/store/memoryStore.js';

const suite = signInSuite();
const { make, servers, defer } = suite;

describe('sign-in with dynamic client registration and the browser', () => {
  it('signs in during initialize, stores the record, and the retry passes', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url } });
    let signIns = 0;
    const sub = h.auth.signedIn$.subscribe(() => (signIns += 1));

    expect(h.auth.header()).toBeUndefined();
    const reply = await request(suite.net.fetch, mcp.url, h.auth);
    sub.unsubscribe();

    expect(reply.status).toBe(200);
    expect(signIns).toBe(1);
    expect(as.stats()).toEqual({
      authorizationRequests: 1,
      codeGrants: 1,
      refreshGrants: 0,
      registrations: 1,
    });
    expect(h.opened).toHaveLength(1);
    expect(h.opened[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/start\/[A-Za-z0-9_-]{43}$/);
    expect(h.signInLines).toHaveLength(1);
    expect(h.signInLines[0]).toMatch(/^mcp-bridge-vscode: sign in at https:\/\/127\.0\.0\.1:\d+\/auth\?/);
    const [authorization] = as.authorizations();
    expect(authorization).toMatchObject({
      // offline_access: the server lists it in its scopes_supported (protocol-mapping §8.9).
      scope: 'mcp:read offline_access',
      resource: [mcp.url],
      codeChallengeMethod: 'S256',
      hasState: true,
      hasCodeChallenge: true,
    });
    expect(as.tokenRequests().map((t) => [t.grantType, t.resource, t.authMethod])).toEqual([
      ['authorization_code', [mcp.url], 'none'],
    ]);
    const record = await h.store.read({
      url: mcp.url,
      identity: 'mcp-bridge-vscode|default|http://127.0.0.1:0/callback',
    });
    expect(record).toMatchObject({ version: 1, issuer: as.issuer, resource: mcp.url, scope: 'mcp:read' });
    expect(record?.client.source).toBe('dynamic');
    expect(h.auth.header()).toBe(`Bearer ${record?.accessToken ?? 'none'}`);
    expect(h.consent.asked).toEqual([]);
    expect(h.sentSecrets).toHaveLength(2); // the code and the verifier
    expectNoSecrets(harnessOutput(h), [...secretsOf(record), ...h.sentSecrets]);
  });
});

describe('step-up (protocol-mapping §8.8)', () => {
  const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: {} } };

  it('asks for the union of the granted and the challenged scopes, once per request', async () => {
    const { as, mcp } = await servers({}, { stepUpTool: { name: 'add', scope: 'mcp:write' } });
    const h = make({ config: { url: mcp.url } });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);

    const signal = new AbortController().signal;
    expect((await request(suite.net.fetch, mcp.url, h.auth, call, signal)).status).toBe(200);
    expect(as.authorizations().map((a) => a.scope)).toEqual([
      'mcp:read offline_access',
      'mcp:read mcp:write offline_access',
    ]);
    expect(h.signInLines).toHaveLength(2);

    // The same request refused again: no second step-up.
    const again = await post(suite.net.fetch, mcp.url, h.auth, call);
    expect(again.status).toBe(200);
    await expect(
      h.auth.challenge({
        status: 403,
        wwwAuthenticate: 'Bearer error="insufficient_scope", scope="mcp:admin"',
        method: 'tools/call',
        signal,
      }),
    ).rejects.toMatchObject({ code: 'access_refused', detail: 'HTTP status 403 after a step-up' });
    expect(as.stats().authorizationRequests).toBe(2);
  });

  it('fails at once for a 403 whose scopes the token already has, or without insufficient_scope', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url } });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    const signal = new AbortController().signal;
    await expect(
      h.auth.challenge({
        status: 403,
        wwwAuthenticate: 'Bearer error="insufficient_scope", scope="mcp:read"',
        method: 'tools/call',
        signal,
      }),
    ).rejects.toMatchObject({
      code: 'access_refused',
      detail: 'HTTP status 403 for scopes the sign-in already has',
    });
    await expect(
      h.auth.challenge({
        status: 403,
        wwwAuthenticate: 'Bearer error="invalid_token"',
        method: 'tools/call',
        signal,
      }),
    ).rejects.toMatchObject({ code: 'access_refused', detail: 'HTTP status 403' });
    expect(as.stats().authorizationRequests).toBe(1);
  });
});

describe('migration to another authorization server (protocol-mapping §8.10)', () => {
  it('signs in anew at the server the resource metadata now names, with a new client', async () => {
    const { as, mcp } = await servers();
    const store = createMemoryStore();
    const h = make({ config: { url: mcp.url }, store });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    const first = await store.read({
      url: mcp.url,
      identity: 'mcp-bridge-vscode|default|http://127.0.0.1:0/callback',
    });

    const second = await startAuthServer({ tls: suite.certs, caPem: suite.certs.caPem });
    defer(() => second.close());
    mcp.useAuthServer(second);
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);

    const now = await store.read({
      url: mcp.url,
      identity: 'mcp-bridge-vscode|default|http://127.0.0.1:0/callback',
    });
    expect(as.stats()).toEqual({
      authorizationRequests: 1,
      codeGrants: 1,
      refreshGrants: 0,
      registrations: 1,
    });
    expect(second.stats()).toEqual({
      authorizationRequests: 1,
      codeGrants: 1,
      refreshGrants: 0,
      registrations: 1,
    });
    // The stored refresh token of the first server never goes to the second one.
    expect(second.tokenRequests().map((t) => t.grantType)).toEqual(['authorization_code']);
    expect(now?.issuer).toBe(second.issuer);
    expect(now?.client.clientId).not.toBe(first?.client.clientId);
    expect(h.logs.map((l) => l.text)).toContain(
      'the upstream server names another authorization server than the one of the stored sign-in: the bridge signs in there anew',
    );
  });
});

describe('one sign-in for several waiters', () => {
  it('a second auth on the same store and lock takes the stored token and opens no browser', async () => {
    const { as, mcp } = await servers();
    const store = createMemoryStore();
    const lock = createProcessLock();
    const a = make({ config: { url: mcp.url }, store, lock });
    const b = make({ config: { url: mcp.url }, store, lock });
    const [ra, rb] = await Promise.all([
      request(suite.net.fetch, mcp.url, a.auth),
      request(suite.net.fetch, mcp.url, b.auth),
    ]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    expect(as.stats().authorizationRequests).toBe(1);
    expect(a.opened.length + b.opened.length).toBe(1);
    expect(a.auth.header()).toBe(b.auth.header());
  });

  it('two file locks on one directory (two processes) elect one sign-in', async () => {
    const { as, mcp } = await servers();
    const store = createMemoryStore();
    const directory = mkdtempSync(join(tmpdir(), 'mcp-bridge-lock-'));
    defer(() => Promise.resolve(rmSync(directory, { recursive: true, force: true })));
    const a = make({ config: { url: mcp.url }, store, lock: createFileLock({ directory }) });
    const b = make({ config: { url: mcp.url }, store, lock: createFileLock({ directory }) });
    const [ra, rb] = await Promise.all([
      request(suite.net.fetch, mcp.url, a.auth),
      request(suite.net.fetch, mcp.url, b.auth),
    ]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    expect(as.stats()).toEqual({
      authorizationRequests: 1,
      codeGrants: 1,
      refreshGrants: 0,
      registrations: 1,
    });
    expect(a.opened.length + b.opened.length).toBe(1);
    expect(a.signInLines.length + b.signInLines.length).toBe(1);
  });
});
