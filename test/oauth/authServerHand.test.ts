/**
 * Smoke tests of the hand-written authorization server (test/fixtures/oauth/handAuthServer.ts):
 * each `iss` mode, the metadata variants, client authentication by one method only, PKCE and
 * the resource at the token endpoint, rotation and revocation, client ID metadata documents,
 * registration, and use behind the protected MCP fixture.
 */
import { describe, expect, it } from 'vitest';
import { startHandAuthServer } from '../fixtures/oauth/handAuthServer.js';
import type { HandAuthServer, HandAuthServerOptions } from '../fixtures/oauth/handAuthServer.js';
import { basicAuth, pkcePair, startDocumentHost } from '../fixtures/oauth/oauthClient.js';
import { authServerSuite } from './authServerSuite.js';
import { startProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import { browse } from '../fixtures/oauth/testBrowser.js';
import { movableClock } from '../fixtures/oauth/movableClock.js';

const RESOURCE = 'https://127.0.0.1:9/mcp';

const suite = authServerSuite();
const { defer } = suite;

async function start(options: HandAuthServerOptions = {}): Promise<HandAuthServer> {
  const server = await startHandAuthServer({
    clients: [
      { clientId: 'hand-client', clientSecret: 'hand-secret-1', redirectUris: ['http://127.0.0.1/callback'] },
    ],
    ...options,
  });
  server.allowResource(RESOURCE);
  defer(server);
  return server;
}

interface Authorized {
  readonly callback: URL;
  readonly verifier: string;
}

async function authorize(server: HandAuthServer, extra: Record<string, string> = {}): Promise<Authorized> {
  const pkce = pkcePair();
  const url = new URL(`${server.issuer}/authorize`);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: 'hand-client',
    redirect_uri: suite.page.redirectUri,
    scope: 'mcp:read',
    state: 'state-7',
    resource: RESOURCE,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
  for (const [name, value] of Object.entries(params)) if (value !== '') url.searchParams.set(name, value);
  const result = await browse(url.href, { ca: suite.certs.caPem });
  expect(result.callback, JSON.stringify(result.steps)).toBeDefined();
  return { callback: result.callback!, verifier: pkce.verifier };
}

/** The code exchange form; an empty value in `extra` leaves that field out. */
const codeForm = (auth: Authorized, extra: Record<string, string> = {}): Record<string, string> =>
  Object.fromEntries(
    Object.entries({
      grant_type: 'authorization_code',
      code: auth.callback.searchParams.get('code') ?? '',
      redirect_uri: suite.page.redirectUri,
      code_verifier: auth.verifier,
      client_id: 'hand-client',
      client_secret: 'hand-secret-1',
      resource: RESOURCE,
      ...extra,
    }).filter(([, value]) => value !== ''),
  );

describe('hand-written authorization server', () => {
  it.each([
    ['correct', true, 'self'],
    ['missing', true, null],
    ['wrong', true, 'https://wrong.example'],
    ['unexpected', undefined, 'self'],
    ['none', undefined, null],
  ] as const)('iss %s: advertised %s, sent %s', async (iss, advertised, sent) => {
    const server = await start({ iss });
    const metadata = await suite.http.json(`${server.issuer}/.well-known/oauth-authorization-server`);
    expect(metadata.body['authorization_response_iss_parameter_supported']).toBe(advertised);
    const { callback } = await authorize(server);
    expect(callback.searchParams.get('iss')).toBe(sent === 'self' ? server.issuer : sent);
    expect(callback.searchParams.get('state')).toBe('state-7');
    expect(callback.searchParams.has('code')).toBe(true);
  });

  it('sends the issValue override, e.g. a trailing-slash variant of the issuer', async () => {
    const first = await start();
    const server = await start({ issValue: `${first.issuer}/` });
    expect((await authorize(server)).callback.searchParams.get('iss')).toBe(`${first.issuer}/`);
  });

  it('publishes its metadata: plain HTTP issuer, endpoints, PKCE, post only, no registration; variants', async () => {
    const server = await start();
    expect(server.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { body } = await suite.http.json(server.metadataUrl);
    expect(body).toEqual({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/authorize`,
      token_endpoint: `${server.issuer}/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_post'],
      scopes_supported: ['mcp:read', 'mcp:write'],
      authorization_response_iss_parameter_supported: true,
    });
    const mismatch = await start({ metadataIssuer: 'https://127.0.0.1:1', omitPkceMethods: true });
    const other = (await suite.http.json(mismatch.metadataUrl)).body;
    expect(other['issuer']).toBe('https://127.0.0.1:1');
    expect(other['code_challenge_methods_supported']).toBeUndefined();

    const tenant = await start({ issuerPath: '/tenant1', metadataAt: 'openid', tls: suite.certs });
    expect(tenant.issuer).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/tenant1$/);
    const origin = new URL(tenant.issuer).origin;
    expect(tenant.metadataUrl).toBe(`${origin}/.well-known/openid-configuration/tenant1`);
    expect((await suite.http.json(tenant.metadataUrl)).body['token_endpoint']).toBe(`${tenant.issuer}/token`);
    expect((await suite.http.json(`${origin}/.well-known/oauth-authorization-server/tenant1`)).status).toBe(
      404,
    );
    const suffix = await start({ issuerPath: '/t2', metadataAt: 'openid-suffix' });
    expect(suffix.metadataUrl).toBe(`${suffix.issuer}/.well-known/openid-configuration`);
    expect((await suite.http.json(suffix.metadataUrl)).body['issuer']).toBe(suffix.issuer);
    expect((await authorize(suffix)).callback.searchParams.has('code')).toBe(true);
  });

  it('accepts client_secret_post only: basic is refused with 401 invalid_client', async () => {
    const server = await start();
    const basic = await authorize(server);
    const { client_secret: _secret, ...withoutSecret } = codeForm(basic);
    const refused = await suite.http.form(`${server.issuer}/token`, withoutSecret, {
      authorization: basicAuth('hand-client', 'hand-secret-1'),
    });
    expect(refused.status).toBe(401);
    expect(refused.body['error']).toBe('invalid_client');
    const wrong = await suite.http.form(
      `${server.issuer}/token`,
      codeForm(await authorize(server), { client_secret: 'x' }),
    );
    expect(wrong.status).toBe(401);
    const post = await suite.http.form(`${server.issuer}/token`, codeForm(await authorize(server)));
    expect(post.status).toBe(200);
    expect(post.body).toMatchObject({ token_type: 'Bearer', scope: 'mcp:read', expires_in: 3600 });
    expect(await server.verify(String(post.body['access_token']))).toEqual({
      scope: 'mcp:read',
      clientId: 'hand-client',
      audience: RESOURCE,
    });
    expect(server.tokenRequests().map((request) => [request.authMethod, request.status])).toEqual([
      ['client_secret_basic', 401],
      ['client_secret_post', 401],
      ['client_secret_post', 200],
    ]);
  });

  it('accepts client_secret_basic only when configured so, and none for public clients', async () => {
    const server = await start({ tokenEndpointAuth: 'client_secret_basic' });
    expect((await suite.http.form(`${server.issuer}/token`, codeForm(await authorize(server)))).status).toBe(
      401,
    );
    const { client_secret: _secret, ...form } = codeForm(await authorize(server));
    const basic = await suite.http.form(`${server.issuer}/token`, form, {
      authorization: basicAuth('hand-client', 'hand-secret-1'),
    });
    expect(basic.status).toBe(200);
    const open = await start({
      tokenEndpointAuth: 'none',
      clients: [{ clientId: 'hand-client', redirectUris: ['http://127.0.0.1/callback'] }],
    });
    const { client_secret: _unused, ...publicForm } = codeForm(await authorize(open));
    expect((await suite.http.form(`${open.issuer}/token`, publicForm)).status).toBe(200);
  });

  it('checks PKCE, single use of codes and the resource at the token endpoint', async () => {
    const server = await start();
    const noChallenge = await authorize(server, { code_challenge: '' });
    expect(noChallenge.callback.searchParams.get('error')).toBe('invalid_request');
    const plain = await authorize(server, { code_challenge_method: 'plain' });
    expect(plain.callback.searchParams.get('error')).toBe('invalid_request');
    const badTarget = await authorize(server, { resource: 'https://127.0.0.1:9/other' });
    expect(badTarget.callback.searchParams.get('error')).toBe('invalid_target');

    const auth = await authorize(server);
    const wrongVerifier = await suite.http.form(
      `${server.issuer}/token`,
      codeForm(auth, { code_verifier: pkcePair().verifier }),
    );
    expect(wrongVerifier.body['error']).toBe('invalid_grant');
    // The failed attempt spent the code.
    expect((await suite.http.form(`${server.issuer}/token`, codeForm(auth))).body['error']).toBe(
      'invalid_grant',
    );
    const otherResource = await suite.http.form(
      `${server.issuer}/token`,
      codeForm(await authorize(server), { resource: 'https://127.0.0.1:9/other' }),
    );
    expect(otherResource.body['error']).toBe('invalid_target');
    const noResource = await authorize(server, { resource: '' });
    const tokenless = await suite.http.form(`${server.issuer}/token`, codeForm(noResource, { resource: '' }));
    expect(tokenless.status).toBe(200);
    expect(await server.verify(String(tokenless.body['access_token']))).toBeUndefined();
    expect(server.stats()).toEqual({
      authorizationRequests: 6,
      codeGrants: 1,
      refreshGrants: 0,
      registrations: 0,
    });
  });

  it('rotates refresh tokens, revokes them on request, and expires access tokens', async () => {
    const clock = movableClock();
    const server = await start({ accessTokenTtlSeconds: 1, now: clock.now });
    const first = await suite.http.form(`${server.issuer}/token`, codeForm(await authorize(server)));
    const refreshForm = (token: unknown) => ({
      grant_type: 'refresh_token',
      refresh_token: String(token),
      client_id: 'hand-client',
      client_secret: 'hand-secret-1',
      resource: RESOURCE,
    });
    const second = await suite.http.form(`${server.issuer}/token`, refreshForm(first.body['refresh_token']));
    expect(second.status).toBe(200);
    expect(second.body['refresh_token']).not.toBe(first.body['refresh_token']);
    expect(
      (await suite.http.form(`${server.issuer}/token`, refreshForm(first.body['refresh_token']))).body[
        'error'
      ],
    ).toBe('invalid_grant');
    server.revokeRefreshTokens();
    expect(
      (await suite.http.form(`${server.issuer}/token`, refreshForm(second.body['refresh_token']))).body[
        'error'
      ],
    ).toBe('invalid_grant');
    expect(server.stats().refreshGrants).toBe(1);
    const accessToken = String(second.body['access_token']);
    expect(await server.verify(accessToken)).toBeDefined();
    const secrets = server.issuedSecrets();
    for (const value of [
      first.body['access_token'],
      first.body['refresh_token'],
      accessToken,
      'hand-secret-1',
    ])
      expect(secrets).toContain(value);
    // The access token lives 1 s on the clock of the server, moved to its end.
    clock.move(1_000);
    expect(await server.verify(accessToken)).toBeUndefined();
  });

  it('revokeAccessTokens makes a live access token unknown', async () => {
    const server = await start();
    const token = await suite.http.form(`${server.issuer}/token`, codeForm(await authorize(server)));
    const accessToken = String(token.body['access_token']);
    expect(await server.verify(accessToken)).toBeDefined();
    server.revokeAccessTokens();
    expect(await server.verify(accessToken)).toBeUndefined();
  });

  it('fetches a client ID metadata document and checks its redirect URIs', async () => {
    const docs = await startDocumentHost(suite.certs);
    defer(docs);
    const server = await start({
      metadataDocuments: true,
      tokenEndpointAuth: 'none',
      caPem: suite.certs.caPem,
    });
    expect((await suite.http.json(server.metadataUrl)).body['client_id_metadata_document_supported']).toBe(
      true,
    );
    const clientId = docs.host({ client_name: 'doc client', redirect_uris: ['http://127.0.0.1/callback'] });
    const auth = await authorize(server, { client_id: clientId });
    const { client_secret: _secret, ...form } = codeForm(auth, { client_id: clientId });
    expect((await suite.http.form(`${server.issuer}/token`, form)).status).toBe(200);
    const elsewhere = docs.host({ redirect_uris: ['http://127.0.0.1/elsewhere'] });
    const url = new URL(`${server.issuer}/authorize`);
    url.searchParams.set('client_id', elsewhere);
    url.searchParams.set('redirect_uri', suite.page.redirectUri);
    const refused = await browse(url.href, { ca: suite.certs.caPem });
    expect(refused.callback).toBeUndefined();
    expect(refused.steps.map((step) => step.status)).toEqual([400]);
    const liar = docs.host(
      { redirect_uris: ['http://127.0.0.1/callback'] },
      'https://127.0.0.1:9/someone-else',
    );
    url.searchParams.set('client_id', liar);
    expect((await browse(url.href, { ca: suite.certs.caPem })).steps.map((step) => step.status)).toEqual([
      400,
    ]);
    expect(server.metadataDocumentFetches()).toEqual([clientId, elsewhere, liar]);
    expect(docs.hits(clientId)).toBe(1);
  });

  it('registers native clients when registration is on, and denies when told to', async () => {
    const server = await start({ registration: true, tokenEndpointAuth: 'none' });
    expect((await suite.http.json(server.metadataUrl)).body['registration_endpoint']).toBe(
      `${server.issuer}/register`,
    );
    const registered = await suite.http.json(`${server.issuer}/register`, {
      body: { application_type: 'native', redirect_uris: [suite.page.redirectUri] },
    });
    expect(registered.status).toBe(201);
    const clientId = String(registered.body['client_id']);
    expect((await authorize(server, { client_id: clientId })).callback.searchParams.has('code')).toBe(true);
    expect(server.stats().registrations).toBe(1);
    server.setDeny(true);
    const denied = await authorize(server, { client_id: clientId });
    expect(denied.callback.searchParams.get('error')).toBe('access_denied');
    expect(denied.callback.searchParams.get('iss')).toBe(server.issuer);
    const none = await start();
    expect((await suite.http.json(none.metadataUrl)).body['registration_endpoint']).toBeUndefined();
    expect(
      (
        await suite.http.json(`${none.issuer}/register`, {
          body: { redirect_uris: [suite.page.redirectUri] },
        })
      ).status,
    ).toBe(404);
  });

  it('guards the protected MCP fixture: the PRM names it and its tokens pass', async () => {
    const server = await start();
    const mcp = await startProtectedMcp({ tls: suite.certs, authServer: server });
    defer(mcp);
    expect((await suite.http.json(mcp.resourceMetadataUrl)).body['authorization_servers']).toEqual([
      server.issuer,
    ]);
    const auth = await authorize(server, { resource: mcp.url });
    const token = await suite.http.form(`${server.issuer}/token`, codeForm(auth, { resource: mcp.url }));
    expect(await server.verify(String(token.body['access_token']))).toMatchObject({ audience: mcp.url });
    const reply = await suite.http.json(mcp.url, {
      headers: {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
        authorization: `Bearer ${String(token.body['access_token'])}`,
      },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
    });
    expect(reply.status).toBe(200);
  });
});
