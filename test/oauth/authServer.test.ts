/**
 * Smoke tests of the oidc-provider test authorization server (test/fixtures/oauth/authServer.ts),
 * driven by plain HTTP, a hand-computed PKCE pair and the test browser's core (`browse`). They
 * prove the infrastructure the sign-in tests of the bridge stand on.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startAuthServer } from '../fixtures/oauth/authServer.js';
import type { AuthServer, AuthServerOptions } from '../fixtures/oauth/authServer.js';
import { basicAuth, caFetch, pkcePair, startCallbackPage } from '../fixtures/oauth/oauthClient.js';
import type { CaFetch, CallbackPage } from '../fixtures/oauth/oauthClient.js';
import { browse } from '../fixtures/oauth/testBrowser.js';
import { movableClock } from '../fixtures/oauth/movableClock.js';
import { makeTestCerts } from '../edges/http/support.js';
import type { TestCerts } from '../edges/http/support.js';

const RESOURCE = 'https://127.0.0.1:9/mcp';

let certs: TestCerts;
let http: CaFetch;
let page: CallbackPage;
const servers: AuthServer[] = [];
const consoleCalls: unknown[][] = [];

beforeAll(async () => {
  certs = makeTestCerts();
  http = caFetch(certs.caPem);
  page = await startCallbackPage();
  for (const name of ['log', 'info', 'warn', 'error'] as const)
    vi.spyOn(console, name).mockImplementation((...args: unknown[]) => void consoleCalls.push(args));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  vi.restoreAllMocks();
  await http.close();
  await page.close();
  certs.remove();
});

async function start(options: Partial<AuthServerOptions> = {}): Promise<AuthServer> {
  const server = await startAuthServer({ tls: certs, caPem: certs.caPem, resource: RESOURCE, ...options });
  servers.push(server);
  return server;
}

async function register(server: AuthServer, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await http.json(`${server.issuer}/reg`, {
    body: {
      application_type: 'native',
      client_name: 'smoke test',
      redirect_uris: [page.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    },
  });
  expect(reply.status).toBe(201);
  return String(reply.body['client_id']);
}

interface Authorized {
  readonly callback: URL;
  readonly verifier: string;
}

async function authorize(
  server: AuthServer,
  clientId: string,
  extra: Record<string, string> = {},
  mode: 'follow' | 'deny' = 'follow',
): Promise<Authorized> {
  const pkce = pkcePair();
  const url = new URL(`${server.issuer}/auth`);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: page.redirectUri,
    scope: 'mcp:read',
    state: 'state-1',
    resource: RESOURCE,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
  for (const [name, value] of Object.entries(params)) if (value !== '') url.searchParams.set(name, value);
  const result = await browse(url.href, { ca: certs.caPem, mode });
  expect(result.callback, JSON.stringify(result.steps)).toBeDefined();
  return { callback: result.callback!, verifier: pkce.verifier };
}

const exchange = (
  server: AuthServer,
  clientId: string,
  auth: Authorized,
  extra: Record<string, string> = {},
) =>
  http.form(`${server.issuer}/token`, {
    grant_type: 'authorization_code',
    code: auth.callback.searchParams.get('code') ?? '',
    redirect_uri: page.redirectUri,
    code_verifier: auth.verifier,
    client_id: clientId,
    resource: RESOURCE,
    ...extra,
  });

const refresh = (server: AuthServer, clientId: string, token: string) =>
  http.form(`${server.issuer}/token`, {
    grant_type: 'refresh_token',
    refresh_token: token,
    client_id: clientId,
    resource: RESOURCE,
  });

describe('oidc-provider test authorization server', () => {
  it('publishes metadata with PKCE S256, iss, registration and loopback https endpoints', async () => {
    const server = await start();
    const { status, body } = await http.json(`${server.issuer}/.well-known/openid-configuration`);
    expect(status).toBe(200);
    expect(server.issuer).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(body['issuer']).toBe(server.issuer);
    expect(body['code_challenge_methods_supported']).toEqual(['S256']);
    expect(body['authorization_response_iss_parameter_supported']).toBe(true);
    expect(body['registration_endpoint']).toBe(`${server.issuer}/reg`);
    expect(body['authorization_endpoint']).toBe(`${server.issuer}/auth`);
    expect(body['token_endpoint']).toBe(`${server.issuer}/token`);
    expect(body['scopes_supported']).toContain('offline_access');
    expect(body['client_id_metadata_document_supported']).toBeUndefined();
    const oauth = await http.json(`${server.issuer}/.well-known/oauth-authorization-server`);
    expect(oauth.status).toBe(200);
    expect(oauth.body['issuer']).toBe(server.issuer);
    const postOnly = await start({ clientAuthMethods: ['client_secret_post'] });
    const listed = await http.json(`${postOnly.issuer}/.well-known/oauth-authorization-server`);
    expect(listed.body['token_endpoint_auth_methods_supported']).toEqual(['client_secret_post']);
    const openidOnly = await start({ oauthMetadataPath: false });
    expect((await http.json(`${openidOnly.issuer}/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect((await http.json(`${openidOnly.issuer}/.well-known/openid-configuration`)).status).toBe(200);
  });

  it('registers a native client, signs in through the browser, and issues a token for the MCP URL', async () => {
    const server = await start();
    const clientId = await register(server);
    const auth = await authorize(server, clientId);
    expect(auth.callback.searchParams.get('state')).toBe('state-1');
    expect(auth.callback.searchParams.get('iss')).toBe(server.issuer);
    const token = await exchange(server, clientId, auth);
    expect(token.status).toBe(200);
    expect(token.body['token_type']).toBe('Bearer');
    expect(token.body['scope']).toBe('mcp:read');
    expect(typeof token.body['refresh_token']).toBe('string');
    expect(await server.verify(String(token.body['access_token']))).toEqual({
      scope: 'mcp:read',
      clientId,
      audience: RESOURCE,
    });
    expect(await server.verify('not-a-token')).toBeUndefined();
    expect(server.stats()).toEqual({
      authorizationRequests: 1,
      codeGrants: 1,
      refreshGrants: 0,
      registrations: 1,
    });
    expect(server.authorizations()).toEqual([
      {
        clientId,
        scope: 'mcp:read',
        resource: [RESOURCE],
        redirectUri: page.redirectUri,
        codeChallengeMethod: 'S256',
        hasState: true,
        hasCodeChallenge: true,
      },
    ]);
    expect(server.tokenRequests()).toEqual([
      {
        grantType: 'authorization_code',
        clientId,
        resource: [RESOURCE],
        scope: undefined,
        authMethod: 'none',
        status: 200,
      },
    ]);
  });

  it('accepts the registered loopback redirect URI on another port (native client)', async () => {
    const server = await start();
    const other = await startCallbackPage();
    try {
      const reply = await http.json(`${server.issuer}/reg`, {
        body: {
          application_type: 'native',
          redirect_uris: ['http://127.0.0.1:41894/callback'],
          token_endpoint_auth_method: 'none',
        },
      });
      expect(reply.status).toBe(201);
      const url = new URL(`${server.issuer}/auth`);
      const pkce = pkcePair();
      for (const [name, value] of Object.entries({
        response_type: 'code',
        client_id: String(reply.body['client_id']),
        redirect_uri: other.redirectUri,
        scope: 'mcp:read',
        state: 's',
        resource: RESOURCE,
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
      }))
        url.searchParams.set(name, value);
      const result = await browse(url.href, { ca: certs.caPem });
      expect(result.callback?.origin).toBe(new URL(other.redirectUri).origin);
      expect(result.callback?.searchParams.has('code')).toBe(true);
      expect(other.hits()).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('rotates refresh tokens, and revokeRefreshTokens makes the next refresh fail', async () => {
    const server = await start();
    const clientId = await register(server);
    const first = await exchange(server, clientId, await authorize(server, clientId));
    const firstRefresh = String(first.body['refresh_token']);
    const second = await refresh(server, clientId, firstRefresh);
    expect(second.status).toBe(200);
    expect(second.body['refresh_token']).not.toBe(firstRefresh);
    expect((await server.verify(String(second.body['access_token'])))?.audience).toBe(RESOURCE);
    // Rotation: the used refresh token is spent.
    const reused = await refresh(server, clientId, firstRefresh);
    expect(reused.status).toBe(400);
    expect(reused.body['error']).toBe('invalid_grant');
    const third = await exchange(server, clientId, await authorize(server, clientId));
    server.revokeRefreshTokens();
    const revoked = await refresh(server, clientId, String(third.body['refresh_token']));
    expect(revoked.status).toBe(400);
    expect(revoked.body['error']).toBe('invalid_grant');
    expect(server.stats()).toEqual({
      authorizationRequests: 2,
      codeGrants: 2,
      refreshGrants: 1,
      registrations: 1,
    });
    expect(
      server.tokenRequests().map((request) => [request.grantType, request.resource, request.status]),
    ).toEqual([
      ['authorization_code', [RESOURCE], 200],
      ['refresh_token', [RESOURCE], 200],
      ['refresh_token', [RESOURCE], 400],
      ['authorization_code', [RESOURCE], 200],
      ['refresh_token', [RESOURCE], 400],
    ]);
  });

  it('lists what it issued (for secret scans) and revokes access tokens', async () => {
    const server = await start({
      clients: [
        {
          client_id: 'secret-client',
          client_secret: 'listed-secret-1',
          token_endpoint_auth_method: 'client_secret_post',
          redirect_uris: [page.redirectUri],
        },
      ],
    });
    const auth = await authorize(server, 'secret-client');
    const token = await exchange(server, 'secret-client', auth, { client_secret: 'listed-secret-1' });
    const accessToken = String(token.body['access_token']);
    const secrets = server.issuedSecrets();
    for (const value of [accessToken, token.body['refresh_token'], 'listed-secret-1', auth.verifier])
      expect(secrets).toContain(value);
    server.revokeAccessTokens();
    expect(await server.verify(accessToken)).toBeUndefined();
  });

  it('requires PKCE S256 and the right verifier', async () => {
    const server = await start();
    const clientId = await register(server);
    const noChallenge = await authorize(server, clientId, { code_challenge: '', code_challenge_method: '' });
    expect(noChallenge.callback.searchParams.get('error')).toBe('invalid_request');
    const plain = await authorize(server, clientId, { code_challenge_method: 'plain' });
    expect(plain.callback.searchParams.get('error')).toBe('invalid_request');
    const auth = await authorize(server, clientId);
    const wrong = await exchange(server, clientId, { ...auth, verifier: pkcePair().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body['error']).toBe('invalid_grant');
    expect(server.stats().codeGrants).toBe(0);
  });

  it('binds the token to the resource: another resource is invalid_target, none gives no MCP audience', async () => {
    const server = await start();
    const clientId = await register(server);
    const other = await authorize(server, clientId, { resource: 'https://127.0.0.1:9/other' });
    expect(other.callback.searchParams.get('error')).toBe('invalid_target');
    const none = await authorize(server, clientId, { resource: '', scope: 'openid mcp:read' });
    const token = await exchange(server, clientId, none, { resource: '' });
    expect(token.status).toBe(200);
    expect(await server.verify(String(token.body['access_token']))).toBeUndefined();
    server.allowResource('https://127.0.0.1:9/second');
    const second = await authorize(server, clientId, { resource: 'https://127.0.0.1:9/second' });
    const secondToken = await exchange(server, clientId, second, { resource: 'https://127.0.0.1:9/second' });
    expect((await server.verify(String(secondToken.body['access_token'])))?.audience).toBe(
      'https://127.0.0.1:9/second',
    );
  });

  it('denies: setDeny and the browser deny mode both end with access_denied and iss', async () => {
    const server = await start();
    const clientId = await register(server);
    const byMode = await authorize(server, clientId, {}, 'deny');
    expect(byMode.callback.searchParams.get('error')).toBe('access_denied');
    expect(byMode.callback.searchParams.get('iss')).toBe(server.issuer);
    server.setDeny(true);
    const bySwitch = await authorize(server, clientId);
    expect(bySwitch.callback.searchParams.get('error')).toBe('access_denied');
    server.setDeny(false);
    expect((await authorize(server, clientId)).callback.searchParams.has('code')).toBe(true);
  });

  it('leaves iss out of responses and metadata with issParameter: false', async () => {
    const server = await start({ issParameter: false });
    const { body } = await http.json(`${server.issuer}/.well-known/oauth-authorization-server`);
    expect(body['authorization_response_iss_parameter_supported']).toBeUndefined();
    const clientId = await register(server);
    const auth = await authorize(server, clientId);
    expect(auth.callback.searchParams.has('code')).toBe(true);
    expect(auth.callback.searchParams.has('iss')).toBe(false);
    expect((await exchange(server, clientId, auth)).status).toBe(200);
  });

  it('signs in pre-registered clients (basic, post, none) and logs how each authenticated', async () => {
    const server = await start({
      dynamicRegistration: false,
      clients: [
        {
          client_id: 'basic-client',
          client_secret: 'basic-secret-1',
          token_endpoint_auth_method: 'client_secret_basic',
          redirect_uris: [page.redirectUri],
        },
        {
          client_id: 'post-client',
          client_secret: 'post-secret-1',
          token_endpoint_auth_method: 'client_secret_post',
          redirect_uris: [page.redirectUri],
        },
        // Registered without a port: a pre-registered client is native, so any loopback port matches.
        {
          client_id: 'public-client',
          token_endpoint_auth_method: 'none',
          redirect_uris: ['http://127.0.0.1/callback'],
        },
      ],
    });
    const { body } = await http.json(`${server.issuer}/.well-known/openid-configuration`);
    expect(body['registration_endpoint']).toBeUndefined();
    expect(
      (await http.json(`${server.issuer}/reg`, { body: { redirect_uris: [page.redirectUri] } })).status,
    ).toBe(404);

    // oidc-provider takes a secret in either form whatever the client registered: the log tells
    // the sign-in tests which form the bridge used (the hand server rejects basic outright).
    const basic = await authorize(server, 'basic-client');
    const postInstead = await exchange(server, 'basic-client', basic, { client_secret: 'basic-secret-1' });
    expect(postInstead.status).toBe(200);
    const basicAgain = await authorize(server, 'basic-client');
    const viaBasic = await http.form(
      `${server.issuer}/token`,
      {
        grant_type: 'authorization_code',
        code: basicAgain.callback.searchParams.get('code') ?? '',
        redirect_uri: page.redirectUri,
        code_verifier: basicAgain.verifier,
        resource: RESOURCE,
      },
      { authorization: basicAuth('basic-client', 'basic-secret-1') },
    );
    expect(viaBasic.status).toBe(200);

    const post = await authorize(server, 'post-client');
    expect((await exchange(server, 'post-client', post, { client_secret: 'post-secret-1' })).status).toBe(
      200,
    );
    const wrongSecret = await exchange(server, 'post-client', await authorize(server, 'post-client'), {
      client_secret: 'nope',
    });
    expect(wrongSecret.body['error']).toBe('invalid_client');

    expect((await exchange(server, 'public-client', await authorize(server, 'public-client'))).status).toBe(
      200,
    );
    expect(
      server.tokenRequests().map((request) => [request.clientId, request.authMethod, request.status]),
    ).toEqual([
      ['basic-client', 'client_secret_post', 200],
      ['basic-client', 'client_secret_basic', 200],
      ['post-client', 'client_secret_post', 200],
      ['post-client', 'client_secret_post', 401],
      ['public-client', 'none', 200],
    ]);
  });

  it('accepts a client ID metadata document as the client_id when metadataDocuments is on', async () => {
    const server = await start({ metadataDocuments: true, dynamicRegistration: false });
    const { body } = await http.json(`${server.issuer}/.well-known/openid-configuration`);
    expect(body['client_id_metadata_document_supported']).toBe(true);
    const clientId = server.hostClientMetadataDocument({
      client_name: 'smoke test',
      redirect_uris: [page.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(clientId).toBe(`${server.issuer}/cimd/1`);
    expect((await http.json(clientId)).body['client_id']).toBe(clientId);
    const token = await exchange(server, clientId, await authorize(server, clientId));
    expect(token.status).toBe(200);
    expect((await server.verify(String(token.body['access_token'])))?.clientId).toBe(clientId);
    expect(server.stats().registrations).toBe(0);
  });

  it('refuses a metadata document URL when metadataDocuments is off', async () => {
    const server = await start();
    const clientId = server.hostClientMetadataDocument({
      redirect_uris: [page.redirectUri],
      token_endpoint_auth_method: 'none',
    });
    const url = new URL(`${server.issuer}/auth`);
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('response_type', 'code');
    const result = await browse(url.href, { ca: certs.caPem });
    expect(result.callback).toBeUndefined();
    expect(result.steps.at(-1)?.status).toBe(400);
  });

  it('expires access tokens after accessTokenTtlSeconds', async () => {
    const clock = movableClock();
    const server = await start({ accessTokenTtlSeconds: 1, now: clock.now });
    const clientId = await register(server);
    const token = await exchange(server, clientId, await authorize(server, clientId));
    expect(token.body['expires_in']).toBe(1);
    const accessToken = String(token.body['access_token']);
    expect(await server.verify(accessToken)).toBeDefined();
    // The token lives 1 s on the clock of the server's storage, moved to its end.
    clock.move(1_000);
    expect(await server.verify(accessToken)).toBeUndefined();
  });
});

describe('oidc-provider quietness', () => {
  it('printed nothing on the console during the tests above', () => {
    expect(consoleCalls).toEqual([]);
  });
});
