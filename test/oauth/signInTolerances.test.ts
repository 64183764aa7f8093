/**
 * The tolerances of the sign-in (SECURITY.md "Tolerances of the sign-in") against a real,
 * hand-written authorization server that behaves as common servers do, and the token checks at
 * receipt that keep an unusable token out of the store.
 */
import { describe, expect, it } from 'vitest';
import { startHandAuthServer } from '../fixtures/oauth/handAuthServer.js';
import type { HandAuthServer, HandAuthServerOptions } from '../fixtures/oauth/handAuthServer.js';
import { createMemoryStore } from '../../src/oauth/store/memoryStore.js';
import { formEncode } from '../../src/oauth/flow.js';
import { answeringAt, signInSuite, request } from './signInHarness.js';

const suite = signInSuite();
const { defer, make, mcpFor } = suite;

async function hand(options: HandAuthServerOptions): Promise<HandAuthServer> {
  const as = await startHandAuthServer({ tls: suite.certs, caPem: suite.certs.caPem, ...options });
  defer(() => as.close());
  return as;
}

describe('a registration answer without client_secret_expires_at', () => {
  it.each([201, 200] as const)(
    'with status %i is a client whose secret does not expire: the sign-in completes with Basic',
    async (status) => {
      const as = await hand({
        registration: true,
        registrationSecret: status,
        tokenEndpointAuth: 'client_secret_basic',
      });
      const mcp = await mcpFor(as);
      const store = createMemoryStore();
      const h = make({ config: { url: mcp.url }, store });
      expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
      expect(as.stats().registrations).toBe(1);
      expect(as.tokenRequests().map((t) => [t.grantType, t.authMethod, t.status])).toEqual([
        ['authorization_code', 'client_secret_basic', 200],
      ]);
      const [key] = await store.list();
      const record = key === undefined ? undefined : await store.read(key);
      expect(record?.client).toMatchObject({ source: 'dynamic', authMethod: 'client_secret_basic' });
      expect(record?.client.clientSecret).toMatch(/^[0-9a-f]{24}$/);
    },
  );

  it('is refused when the client_id is missing, before any authorization', async () => {
    const as = await hand({ registration: true, tokenEndpointAuth: 'none' });
    const mcp = await mcpFor(as);
    const h = make({
      config: { url: mcp.url },
      deps: {
        fetch: answeringAt(suite.net.fetch, '/register', 201, { client_secret: 'x' }),
      },
    });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'registration_failed',
      detail: 'the answer has no client_id',
    });
    expect(as.stats().authorizationRequests).toBe(0);
  });
});

describe('Basic client credentials', () => {
  it('are form encoded: -._* stay as they are, a space is +, other characters are escaped', () => {
    expect(formEncode('pre-registered-client')).toBe('pre-registered-client');
    expect(formEncode('a.b_c*d~e')).toBe('a.b_c*d%7Ee');
    expect(formEncode('x y+z:%/é')).toBe('x+y%2Bz%3A%25%2F%C3%A9');
  });

  it.each([
    ['a server that does not form-decode them', true, 'pre-registered-client'],
    ['a server that form-decodes them', false, 'pre registered:client+é'],
  ])('match at %s', async (_name, rawBasic, clientId) => {
    const secret = 'secret-with-dash.and_dot';
    const as = await hand({
      tokenEndpointAuth: 'client_secret_basic',
      quirks: { rawBasic },
      clients: [{ clientId, clientSecret: secret, redirectUris: ['http://127.0.0.1/callback'] }],
    });
    const mcp = await mcpFor(as);
    const h = make({
      config: { url: mcp.url, clientId, clientIssuer: as.issuer, clientSecret: secret },
    });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.tokenRequests().map((t) => [t.clientId, t.authMethod, t.status])).toEqual([
      [clientId, 'client_secret_basic', 200],
    ]);
  });
});

describe('token responses', () => {
  it('take token_type "bearer" in lower case and expires_in as a string of digits', async () => {
    const as = await hand({
      registration: true,
      tokenEndpointAuth: 'none',
      accessTokenTtlSeconds: 3600,
      quirks: { tokenType: 'bearer', expiresInString: true },
    });
    const mcp = await mcpFor(as);
    const store = createMemoryStore();
    const before = Date.now();
    const h = make({ config: { url: mcp.url }, store });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    const [key] = await store.list();
    const record = key === undefined ? undefined : await store.read(key);
    expect(record?.tokenType).toBe('Bearer');
    expect(record?.expiresAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(record?.expiresAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
  });

  it.each([
    [
      'an access token with CR LF',
      { accessToken: 'abc\r\nX-Injected: 1' },
      'the access token is not a bearer token value (RFC 6750 §2.1); nothing was stored',
    ],
    [
      'an access token with NUL',
      { accessToken: 'abc\u0000def' },
      'the access token is not a bearer token value (RFC 6750 §2.1); nothing was stored',
    ],
    [
      'an access token above U+00FF',
      { accessToken: 'tok\u0100en' },
      'the access token is not a bearer token value (RFC 6750 §2.1); nothing was stored',
    ],
    [
      'an access token with a space',
      { accessToken: 'two words' },
      'the access token is not a bearer token value (RFC 6750 §2.1); nothing was stored',
    ],
    [
      'a DPoP token',
      { tokenType: 'DPoP' },
      'the authorization server issued a DPoP token to a request without DPoP (it does not advertise DPoP, or --no-dpop is set); nothing was stored',
    ],
    [
      'a token type that is not Bearer',
      { tokenType: 'mac' },
      'the token type is not Bearer; nothing was stored',
    ],
  ])('refuse %s at receipt and store nothing', async (_name, quirks, detail) => {
    const as = await hand({ registration: true, tokenEndpointAuth: 'none', quirks });
    const mcp = await mcpFor(as);
    const store = createMemoryStore();
    const h = make({ config: { url: mcp.url }, store });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail,
    });
    expect(as.stats().codeGrants).toBe(1);
    expect(await store.list()).toEqual([]);
  });

  it('keep a valid b64token with its padding', async () => {
    const as = await hand({
      registration: true,
      tokenEndpointAuth: 'none',
      quirks: { accessToken: 'a-b.c_d~e+f/g==' },
    });
    const mcp = await mcpFor(as);
    const store = createMemoryStore();
    const h = make({ config: { url: mcp.url }, store });
    // The protected MCP fixture knows the token: the request carries it and passes.
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    const [key] = await store.list();
    expect((key === undefined ? undefined : await store.read(key))?.accessToken).toBe('a-b.c_d~e+f/g==');
  });
});
