/**
 * RFC 9207 `iss` (protocol-mapping §8.6) and the metadata checks (§8.3), against the hand-written
 * authorization server (test/fixtures/oauth/handAuthServer.ts): each of the four cases of the
 * table, a differently spelled issuer, a metadata issuer mismatch, a server without PKCE S256,
 * the three metadata URLs, and loopback `http`.
 */
import { describe, expect, it } from 'vitest';
import { startHandAuthServer } from '../fixtures/oauth/handAuthServer.js';
import type { HandAuthServer, HandAuthServerOptions } from '../fixtures/oauth/handAuthServer.js';
import type { ProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { signInSuite, request, rewritingReceiver } from './signInHarness.js';
import type { Harness } from './signInHarness.js';

const suite = signInSuite();
const { defer, make, mcpFor } = suite;

async function setUp(
  options: HandAuthServerOptions,
  tls = true,
): Promise<{ as: HandAuthServer; mcp: ProtectedMcp; h: Harness }> {
  const as = await startHandAuthServer({
    ...(tls ? { tls: suite.certs } : {}),
    registration: true,
    tokenEndpointAuth: 'none',
    ...options,
  });
  defer(() => as.close());
  const mcp = await mcpFor(as);
  return { as, mcp, h: make({ config: { url: mcp.url } }) };
}

const scan = (h: Harness): void =>
  expectNoSecrets(
    { lines: [], stderr: [...h.logs.map((l) => l.text), ...h.signInLines] },
    h.sentSecrets.concat(h.auth.header()?.slice(7) ?? []),
  );

describe('iss of the authorization response (RFC 9207, protocol-mapping §8.6)', () => {
  // The four cases of the table of protocol-mapping §8.6 that end in a completed sign-in.
  it.each<[string, HandAuthServerOptions]>([
    ['advertised and present: the sign-in completes', { iss: 'correct' }],
    ['not advertised but present and right: taken', { iss: 'unexpected' }],
    ['neither advertised nor present: taken', { iss: 'none' }],
  ])('%s', async (_title, options) => {
    const { as, mcp, h } = await setUp(options);
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.stats().codeGrants).toBe(1);
    scan(h);
  });

  // The cases refused before the code is sent anywhere: no token request, no token.
  it.each<[string, HandAuthServerOptions, string]>([
    [
      'advertised and missing: refused before the code is sent anywhere',
      { iss: 'missing' },
      'the authorization response has no iss, which the authorization server promised',
    ],
    [
      'advertised and wrong: refused',
      { iss: 'wrong' },
      'the iss of the authorization response is not the issuer of the authorization server',
    ],
    [
      'not advertised but present and wrong: compared anyway and refused',
      { iss: 'unexpected', issValue: 'https://wrong.example' },
      'the iss of the authorization response is not the issuer of the authorization server',
    ],
  ])('%s', async (_title, options, detail) => {
    const { as, mcp, h } = await setUp(options);
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail,
    });
    expect(as.tokenRequests()).toEqual([]);
    expect(h.auth.header()).toBeUndefined();
    scan(h);
  });

  it('a differently spelled issuer (a trailing slash) is refused: no normalisation', async () => {
    // The receiver hands the flow the callback with the issuer plus "/" as its iss.
    const { as, mcp } = await setUp({ iss: 'correct' });
    const h = make({
      config: { url: mcp.url },
      deps: {
        startReceiver: rewritingReceiver((url) => {
          url.searchParams.set('iss', `${as.issuer}/`);
          return url;
        }),
      },
    });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the iss of the authorization response is not the issuer of the authorization server',
    });
    expect(as.tokenRequests()).toEqual([]);
  });

  it('an error response with a wrong iss is not acted upon', async () => {
    const { mcp, h } = await setUp({ iss: 'wrong', deny: true });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the iss of the authorization response is not the issuer of the authorization server',
    });
  });

  it('an error response with the right iss: access_denied is sign_in_denied', async () => {
    const { mcp, h } = await setUp({ iss: 'correct', deny: true });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_denied',
      detail: 'access_denied',
    });
    expect(h.logs.map((l) => l.text)).toContain('The authorization server refused the access.');
  });
});

describe('an error of the authorization server other than access_denied', () => {
  it('is sign_in_error with the error code, logged as §6.10 says', async () => {
    const { as, mcp } = await setUp({ iss: 'correct' });
    const h = make({
      config: { url: mcp.url },
      deps: {
        startReceiver: rewritingReceiver((url) => {
          url.searchParams.delete('code');
          url.searchParams.set('error', 'temporarily_unavailable');
          return url;
        }),
      },
    });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_error',
      detail: 'the error code is temporarily_unavailable',
    });
    expect(h.logs.map((l) => l.text)).toContain(
      'The authorization server sent an error for the sign-in. The error code is temporarily_unavailable.',
    );
    expect(as.tokenRequests()).toEqual([]);
  });
});

describe('authorization server metadata (protocol-mapping §8.3)', () => {
  it('refuses metadata that names another issuer, and sends nothing to that server', async () => {
    const { as, mcp, h } = await setUp({ metadataIssuer: 'https://other.example' });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the authorization server metadata names another issuer',
    });
    expect(as.stats()).toEqual({
      authorizationRequests: 0,
      codeGrants: 0,
      refreshGrants: 0,
      registrations: 0,
    });
    expect(h.signInLines).toEqual([]);
  });

  it('refuses a server without code_challenge_methods_supported', async () => {
    const { as, mcp, h } = await setUp({ omitPkceMethods: true });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the authorization server does not offer PKCE with S256',
    });
    expect(as.stats().registrations).toBe(0);
  });

  it('finds the metadata at the OpenID path-inserted URL after the RFC 8414 one', async () => {
    const { as, mcp, h } = await setUp({ issuerPath: '/tenant1', metadataAt: 'openid' });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    const origin = new URL(as.issuer).origin;
    expect(h.fetched.filter((url) => url.includes('/.well-known/') && url.startsWith(origin))).toEqual([
      `${origin}/.well-known/oauth-authorization-server/tenant1`,
      // Read once: the registration uses the registration_endpoint of this document.
      `${origin}/.well-known/openid-configuration/tenant1`,
    ]);
  });

  it('finds the metadata at the OpenID appended URL last', async () => {
    const { as, mcp, h } = await setUp({ issuerPath: '/tenant1', metadataAt: 'openid-suffix' });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    const origin = new URL(as.issuer).origin;
    expect(
      h.fetched.filter((url) => url.includes('/.well-known/') && url.startsWith(origin)).slice(0, 3),
    ).toEqual([
      `${origin}/.well-known/oauth-authorization-server/tenant1`,
      `${origin}/.well-known/openid-configuration/tenant1`,
      `${origin}/tenant1/.well-known/openid-configuration`,
    ]);
  });

  it('signs in at a loopback http authorization server', async () => {
    const { as, mcp, h } = await setUp({}, false);
    expect(as.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.stats().codeGrants).toBe(1);
  });
});
