/**
 * Smoke tests of the protected MCP fixture (test/fixtures/oauth/protectedMcp.ts) in front of the
 * oidc-provider test server: resource metadata, the 401 and 403 challenges, the audience check,
 * the step-up scope, and the migration switch.
 */
import { describe, expect, it } from 'vitest';
import { startAuthServer } from '../fixtures/oauth/authServer.js';
import type { AuthServer } from '../fixtures/oauth/authServer.js';
import { signInDirectly } from '../fixtures/oauth/oauthClient.js';
import { authServerSuite } from './authServerSuite.js';
import { startProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import type { ProtectedMcp, ProtectedMcpOptions } from '../fixtures/oauth/protectedMcp.js';

const suite = authServerSuite();
const { defer } = suite;

async function setUp(
  options: Partial<ProtectedMcpOptions> = {},
): Promise<{ as: AuthServer; mcp: ProtectedMcp }> {
  const as = await startAuthServer({ tls: suite.certs, caPem: suite.certs.caPem });
  defer(as);
  const mcp = await startProtectedMcp({ tls: suite.certs, authServer: as, ...options });
  defer(mcp);
  return { as, mcp };
}

const tokenFor = async (as: AuthServer, resource: string, scope = 'mcp:read'): Promise<string> =>
  (
    await signInDirectly({
      issuer: as.issuer,
      caPem: suite.certs.caPem,
      redirectUri: suite.page.redirectUri,
      resource,
      scope,
    })
  ).accessToken;

let nextId = 1;
function call(
  mcp: ProtectedMcp,
  method: string,
  params: { name?: string; [key: string]: unknown },
  token?: string,
) {
  return suite.http.json(mcp.url, {
    headers: {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(params.name === undefined ? {} : { 'mcp-name': params.name }),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: { jsonrpc: '2.0', id: nextId++, method, params },
  });
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'smoke', version: '1' },
};
const DISCOVER = { _meta: META };

describe('protected MCP fixture', () => {
  it('answers 401 with resource_metadata and scope, and serves the PRM document at the path form', async () => {
    const { as, mcp } = await setUp();
    expect(mcp.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const origin = new URL(mcp.url).origin;
    const reply = await call(mcp, 'server/discover', DISCOVER);
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe(
      `Bearer scope="mcp:read", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    const prm = await suite.http.json(`${origin}/.well-known/oauth-protected-resource/mcp`);
    expect(prm.body).toEqual({
      resource: mcp.url,
      authorization_servers: [as.issuer],
      scopes_supported: ['mcp:read'],
      bearer_methods_supported: ['header'],
    });
    expect((await suite.http.json(`${origin}/.well-known/oauth-protected-resource`)).status).toBe(404);
  });

  it('lets a token for its URL through, and refuses a bad token or another audience with 401 invalid_token', async () => {
    const { as, mcp } = await setUp();
    const good = await tokenFor(as, mcp.url);
    const ok = await call(mcp, 'server/discover', DISCOVER, good);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const bad = await call(mcp, 'server/discover', DISCOVER, 'forged-token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", scope="mcp:read", resource_metadata="/,
    );
    as.allowResource('https://127.0.0.1:9/other');
    const elsewhere = await tokenFor(as, 'https://127.0.0.1:9/other');
    expect(await as.verify(elsewhere)).toMatchObject({ audience: 'https://127.0.0.1:9/other' });
    expect((await call(mcp, 'server/discover', DISCOVER, elsewhere)).status).toBe(401);
    expect(mcp.requests().map((request) => [request.rpcMethod, request.status, request.bearer])).toEqual([
      ['server/discover', 200, true],
      ['server/discover', 401, true],
      ['server/discover', 401, true],
    ]);
    // The fixture behind never sees the token (no passthrough).
    expect(mcp.fixture.received.every((request) => request.headers.authorization === undefined)).toBe(true);
  });

  it('answers 403 insufficient_scope with the union for a step-up tool, and lets the stepped-up token through', async () => {
    const { as, mcp } = await setUp({ stepUpTool: { name: 'add', scope: 'mcp:write' } });
    const origin = new URL(mcp.url).origin;
    const narrow = await tokenFor(as, mcp.url, 'mcp:read');
    const args = { name: 'add', arguments: { a: 2, b: 3 }, _meta: META };
    const denied = await call(mcp, 'tools/call', args, narrow);
    expect(denied.status).toBe(403);
    expect(denied.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    const echo = await call(
      mcp,
      'tools/call',
      { name: 'echo', arguments: { text: 'hi' }, _meta: META },
      narrow,
    );
    expect(echo.status, JSON.stringify(echo.body)).toBe(200);
    const wide = await tokenFor(as, mcp.url, 'mcp:read mcp:write');
    const allowed = await call(mcp, 'tools/call', args, wide);
    expect(allowed.status).toBe(200);
    expect(allowed.body).toMatchObject({ result: { content: [{ type: 'text', text: '5' }] } });
  });

  it('answers 403 for a token without the required scope', async () => {
    const { as, mcp } = await setUp({ requiredScope: 'mcp:write' });
    const token = await tokenFor(as, mcp.url, 'mcp:read');
    const reply = await call(mcp, 'server/discover', DISCOVER, token);
    expect(reply.status).toBe(403);
    expect(reply.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", scope="mcp:write", /,
    );
  });

  it('serves the PRM at the root, or only through the header, and publishes a wrong resource on request', async () => {
    const root = await setUp({
      prmPath: 'root',
      resourceMetadataInChallenge: false,
      scopeInChallenge: false,
    });
    const rootOrigin = new URL(root.mcp.url).origin;
    expect((await call(root.mcp, 'server/discover', DISCOVER)).headers.get('www-authenticate')).toBe(
      'Bearer',
    );
    expect(
      (await suite.http.json(`${rootOrigin}/.well-known/oauth-protected-resource`)).body['resource'],
    ).toBe(root.mcp.url);
    expect((await suite.http.json(`${rootOrigin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(
      404,
    );

    const header = await setUp({ prmPath: 'header', prmResource: 'https://127.0.0.1:9/mcp' });
    const challenge =
      (await call(header.mcp, 'server/discover', DISCOVER)).headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${new URL(header.mcp.url).origin}/metadata/protected-resource`);
    expect(header.mcp.resourceMetadataUrl).toBe(metadataUrl);
    expect((await suite.http.json(metadataUrl!)).body['resource']).toBe('https://127.0.0.1:9/mcp');
  });

  it('switches to another authorization server: the PRM names it and only its tokens pass', async () => {
    const { as, mcp } = await setUp();
    const oldToken = await tokenFor(as, mcp.url);
    const second = await startAuthServer({ tls: suite.certs, caPem: suite.certs.caPem });
    defer(second);
    mcp.useAuthServer(second);
    const prm = await suite.http.json(mcp.resourceMetadataUrl);
    expect(prm.body['authorization_servers']).toEqual([second.issuer]);
    expect((await call(mcp, 'server/discover', DISCOVER, oldToken)).status).toBe(401);
    const newToken = await tokenFor(second, mcp.url);
    expect((await call(mcp, 'server/discover', DISCOVER, newToken)).status).toBe(200);
  });
});
