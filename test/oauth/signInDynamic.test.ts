/**
 * The whole sign-in in-process against oidc-provider (test/fixtures/oauth/authServer.ts) and the
 * protected MCP fixture: dynamic client registration, browser before `initialized`, the token
 * used on the retry; silent refresh; a refused refresh; the secret scan of every log line.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer } from '../fixtures/oauth/authServer.js';
import type { AuthServer, AuthServerOptions } from '../fixtures/oauth/authServer.js';
import { startProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import type { ProtectedMcp, ProtectedMcpOptions } from '../fixtures/oauth/protectedMcp.js';
import { makeTestCerts } from '../edges/http/support.js';
import type { TestCerts } from '../edges/http/support.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { caFetchFn, harness, post, request } from './signInHarness.js';
import type { Harness, HarnessOptions } from './signInHarness.js';
import { createMemoryStore } from '../../src/oauth/store/memoryStore.js';
import type { TokenRecord } from '../../src/oauth/store/types.js';

let certs: TestCerts;
let net: ReturnType<typeof caFetchFn>;
const closers: Array<() => Promise<void>> = [];

beforeAll(() => {
  certs = makeTestCerts();
  net = caFetchFn(certs.caPem);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  await net.close();
  certs.remove();
});

async function servers(
  asOptions: Partial<AuthServerOptions> = {},
  mcpOptions: Partial<ProtectedMcpOptions> = {},
): Promise<{ as: AuthServer; mcp: ProtectedMcp }> {
  const as = await startAuthServer({ tls: certs, caPem: certs.caPem, ...asOptions });
  closers.push(() => as.close());
  const mcp = await startProtectedMcp({ tls: certs, authServer: as, ...mcpOptions });
  closers.push(() => mcp.close());
  // A request that passed the bearer check is answered 200 by the fixture behind it.
  mcp.fixture.intercept = () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  return { as, mcp };
}

function make(options: Omit<HarnessOptions, 'ca'>): Harness {
  const h = harness({ ca: certs.caPem, ...options });
  closers.push(() => h.close());
  return h;
}

/** Every log line and sign-in line, as the secret scan reads them. */
const output = (h: Harness): { lines: string[]; stderr: string[] } => ({
  lines: [],
  stderr: [...h.logs.map((l) => `${l.scope}: ${l.level}: ${l.text}`), ...h.signInLines],
});

const secretsOf = (record: TokenRecord | undefined): string[] =>
  [record?.accessToken, record?.refreshToken, record?.client.clientSecret].filter(
    (value): value is string => value !== undefined,
  );

describe('sign-in with dynamic client registration and the browser', () => {
  it('signs in during initialize, stores the record, and the retry passes', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url } });
    let signIns = 0;
    const sub = h.auth.signedIn$.subscribe(() => (signIns += 1));

    expect(h.auth.header()).toBeUndefined();
    const reply = await request(net.fetch, mcp.url, h.auth);
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
    expectNoSecrets(output(h), [...secretsOf(record), ...h.sentSecrets]);
  });
});

describe('tokens of the store', () => {
  it('uses a stored token valid beyond the margin with no request to the authorization server', async () => {
    const { as, mcp } = await servers();
    const store = createMemoryStore();
    const first = make({ config: { url: mcp.url }, store });
    expect((await request(net.fetch, mcp.url, first.auth)).status).toBe(200);

    const second = make({ config: { url: mcp.url }, store });
    await second.auth.load();
    expect(second.auth.header()).toBe(first.auth.header());
    expect((await post(net.fetch, mcp.url, second.auth)).status).toBe(200);
    expect(as.stats()).toEqual({
      authorizationRequests: 1,
      codeGrants: 1,
      refreshGrants: 0,
      registrations: 1,
    });
    expect(second.fetched).toEqual([]);
  });
});
