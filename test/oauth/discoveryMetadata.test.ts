import { describe, expect, it } from 'vitest';
import { discoverResource } from '../../src/oauth/resourceMetadata.js';
import { checkServerMetadata, discoverServer } from '../../src/oauth/serverMetadata.js';
import { getJson, guardedFetch } from '../../src/oauth/http.js';
import { authorizationRequest, configuration } from '../../src/oauth/flow.js';

/** A fetch that answers from a table and records the URLs asked, in order. */
function tableFetch(table: Record<string, { status: number; body?: unknown }>): {
  fetch: typeof globalThis.fetch;
  asked: string[];
} {
  const asked: string[] = [];
  const fetch: typeof globalThis.fetch = (input) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    asked.push(url);
    const entry = table[url] ?? { status: 404 };
    return Promise.resolve(
      new Response(entry.body === undefined ? null : JSON.stringify(entry.body), {
        status: entry.status,
        headers: { 'content-type': 'application/json' },
      }),
    );
  };
  return { fetch, asked };
}

const signal = new AbortController().signal;
const MCP = 'https://mcp.example/public/mcp';
/** A loopback MCP URL: only with one are loopback http sign-in URLs allowed. */
const LOCAL_MCP = 'https://127.0.0.1:8443/mcp';
const PRM = { resource: MCP, authorization_servers: ['https://as.example'], scopes_supported: ['a', 'b'] };

describe('discoverResource (RFC 9728)', () => {
  it('tries the challenge URL, then the path-specific, then the root URL', async () => {
    const { fetch, asked } = tableFetch({
      'https://mcp.example/.well-known/oauth-protected-resource': { status: 200, body: PRM },
    });
    await expect(
      discoverResource({ fetch, mcpUrl: MCP, headerUrl: 'https://mcp.example/prm', signal }),
    ).resolves.toEqual({ resource: MCP, issuer: 'https://as.example', scopesSupported: ['a', 'b'] });
    expect(asked).toEqual([
      'https://mcp.example/prm',
      'https://mcp.example/.well-known/oauth-protected-resource/public/mcp',
      'https://mcp.example/.well-known/oauth-protected-resource',
    ]);
  });

  it('stops at the first document of another resource, without trying the next URL', async () => {
    const { fetch, asked } = tableFetch({
      'https://mcp.example/.well-known/oauth-protected-resource/public/mcp': {
        status: 200,
        body: { ...PRM, resource: 'https://mcp.example/other' },
      },
      'https://mcp.example/.well-known/oauth-protected-resource': { status: 200, body: PRM },
    });
    await expect(discoverResource({ fetch, mcpUrl: MCP, signal })).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the protected resource metadata names another resource than the URL of the server',
    });
    expect(asked).toEqual(['https://mcp.example/.well-known/oauth-protected-resource/public/mcp']);
  });

  // The conformance scenario auth/metadata-var2: no path-specific document, and the root one
  // publishes the origin (RFC 9728 §3.3: the identifier the root URL is built from).
  it('takes the root document whose resource is the origin, and keeps that resource', async () => {
    const { fetch, asked } = tableFetch({
      'https://mcp.example/.well-known/oauth-protected-resource': {
        status: 200,
        body: { resource: 'https://mcp.example', authorization_servers: ['https://as.example/tenant1'] },
      },
    });
    await expect(discoverResource({ fetch, mcpUrl: MCP, signal })).resolves.toEqual({
      resource: 'https://mcp.example',
      issuer: 'https://as.example/tenant1',
    });
    expect(asked).toEqual([
      'https://mcp.example/.well-known/oauth-protected-resource/public/mcp',
      'https://mcp.example/.well-known/oauth-protected-resource',
    ]);
  });

  it('refuses a root document of another origin', async () => {
    const { fetch } = tableFetch({
      'https://mcp.example/.well-known/oauth-protected-resource': {
        status: 200,
        body: { resource: 'https://evil.example', authorization_servers: ['https://as.example'] },
      },
    });
    await expect(discoverResource({ fetch, mcpUrl: MCP, signal })).rejects.toMatchObject({
      detail: 'the protected resource metadata names another resource than the URL of the server',
    });
  });

  it('needs an authorization server, and a document at all', async () => {
    const none = tableFetch({
      'https://mcp.example/.well-known/oauth-protected-resource/public/mcp': {
        status: 200,
        body: { resource: MCP, authorization_servers: [] },
      },
    });
    await expect(discoverResource({ fetch: none.fetch, mcpUrl: MCP, signal })).rejects.toMatchObject({
      detail: 'the protected resource metadata names no authorization server',
    });
    const empty = tableFetch({});
    await expect(discoverResource({ fetch: empty.fetch, mcpUrl: MCP, signal })).rejects.toMatchObject({
      detail: 'the upstream server has no protected resource metadata',
    });
  });
});

const AS = {
  issuer: 'https://as.example/tenant',
  authorization_endpoint: 'https://as.example/tenant/auth',
  token_endpoint: 'https://as.example/tenant/token',
  code_challenge_methods_supported: ['S256'],
};

describe('discoverResource: a resource with a query (RFC 8707 §2)', () => {
  it('is refused, so the key of the MCP URL never becomes the resource indicator', async () => {
    const keyed = 'https://mcp.example/public/mcp?key=secret-k';
    const { fetch } = tableFetch({
      'https://mcp.example/.well-known/oauth-protected-resource/public/mcp': {
        status: 200,
        body: { ...PRM, resource: keyed },
      },
    });
    const failure: unknown = await discoverResource({ fetch, mcpUrl: keyed, signal }).catch(
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({
      code: 'sign_in_failed',
      detail: 'the protected resource metadata names another resource than the URL of the server',
    });
    expect(JSON.stringify(failure)).not.toContain('secret-k');
  });
});

describe('discoverResource with a remote MCP URL', () => {
  it('never fetches a loopback http resource_metadata URL of the challenge', async () => {
    const { fetch, asked } = tableFetch({
      'http://127.0.0.1:9/prm': { status: 200, body: PRM },
      'https://mcp.example/.well-known/oauth-protected-resource/public/mcp': { status: 200, body: PRM },
    });
    await expect(
      discoverResource({ fetch, mcpUrl: MCP, headerUrl: 'http://127.0.0.1:9/prm', signal }),
    ).resolves.toEqual({ resource: MCP, issuer: 'https://as.example', scopesSupported: ['a', 'b'] });
    expect(asked).toEqual(['https://mcp.example/.well-known/oauth-protected-resource/public/mcp']);
  });

  it('the guard refuses a loopback http request before any byte is sent', async () => {
    const { fetch, asked } = tableFetch({});
    await expect(guardedFetch(fetch, MCP)('http://127.0.0.1:9/token')).rejects.toThrow(
      'a sign-in request was refused: the URL is loopback http, allowed only for a loopback MCP URL',
    );
    await expect(getJson(fetch, 'http://127.0.0.1:9/prm', signal, MCP)).resolves.toEqual({
      ok: false,
      reason: 'a sign-in request was refused: the URL is loopback http, allowed only for a loopback MCP URL',
    });
    expect(asked).toEqual([]);
  });
});

describe('discoverServer (RFC 8414, OpenID Discovery)', () => {
  it('tries the three URLs in order and returns the first that answers', async () => {
    const { fetch, asked } = tableFetch({
      'https://as.example/tenant/.well-known/openid-configuration': { status: 200, body: AS },
    });
    await expect(
      discoverServer({ fetch, issuer: 'https://as.example/tenant', mcpUrl: MCP, signal }),
    ).resolves.toEqual({
      metadata: AS,
      metadataUrl: 'https://as.example/tenant/.well-known/openid-configuration',
    });
    expect(asked).toEqual([
      'https://as.example/.well-known/oauth-authorization-server/tenant',
      'https://as.example/.well-known/openid-configuration/tenant',
      'https://as.example/tenant/.well-known/openid-configuration',
    ]);
  });

  it('refuses an issuer that is not https (or loopback http), or has a query, before any request', async () => {
    const { fetch, asked } = tableFetch({});
    await expect(
      discoverServer({ fetch, issuer: 'http://as.example', mcpUrl: MCP, signal }),
    ).rejects.toMatchObject({
      detail: 'the issuer of the authorization server is not usable: the URL is not https',
    });
    await expect(
      discoverServer({ fetch, issuer: 'https://as.example/?x=1', mcpUrl: MCP, signal }),
    ).rejects.toMatchObject({
      detail: 'the issuer of the authorization server has a query',
    });
    expect(asked).toEqual([]);
  });
});

describe('checkServerMetadata (protocol-mapping §8.3)', () => {
  it('takes a document with the exact issuer and S256', () => {
    expect(checkServerMetadata(AS, 'https://as.example/tenant', MCP)).toBeUndefined();
  });

  it('refuses another spelling of the issuer (a trailing slash, case)', () => {
    expect(checkServerMetadata(AS, 'https://as.example/tenant/', MCP)).toBe(
      'the authorization server metadata names another issuer',
    );
    expect(
      checkServerMetadata({ ...AS, issuer: 'https://AS.example/tenant' }, 'https://as.example/tenant', MCP),
    ).toBe('the authorization server metadata names another issuer');
  });

  it('refuses a document without S256', () => {
    expect(checkServerMetadata({ ...AS, code_challenge_methods_supported: ['plain'] }, AS.issuer, MCP)).toBe(
      'the authorization server does not offer PKCE with S256',
    );
    expect(checkServerMetadata({ ...AS, code_challenge_methods_supported: undefined }, AS.issuer, MCP)).toBe(
      'the authorization server does not offer PKCE with S256',
    );
  });

  it('refuses endpoints that are not sign-in URLs', () => {
    expect(checkServerMetadata({ ...AS, token_endpoint: 'http://as.example/token' }, AS.issuer, MCP)).toBe(
      'the token endpoint of the authorization server is not usable: the URL is not https',
    );
    expect(checkServerMetadata({ ...AS, authorization_endpoint: undefined }, AS.issuer, MCP)).toBe(
      'the authorization endpoint of the authorization server is not usable: the URL is missing',
    );
    expect(checkServerMetadata({ ...AS, registration_endpoint: 'javascript:x' }, AS.issuer, MCP)).toBe(
      'the registration endpoint of the authorization server is not usable: the URL is not https',
    );
    expect(
      checkServerMetadata({ ...AS, token_endpoint: 'http://127.0.0.1:9/token' }, AS.issuer, LOCAL_MCP),
    ).toBeUndefined();
    // A remote MCP URL: its authorization server cannot aim the token request at a local http service.
    expect(checkServerMetadata({ ...AS, token_endpoint: 'http://127.0.0.1:9/token' }, AS.issuer, MCP)).toBe(
      'the token endpoint of the authorization server is not usable: the URL is loopback http, allowed only for a loopback MCP URL',
    );
  });
});

describe('the requests of the sign-in (src/oauth/http.ts)', () => {
  it('refuses a URL that is not a sign-in URL before any byte is sent', async () => {
    const { fetch, asked } = tableFetch({});
    await expect(guardedFetch(fetch, MCP)('http://as.example/token')).rejects.toThrow(
      'a sign-in request was refused: the URL is not https',
    );
    await expect(getJson(fetch, 'http://as.example/.well-known/x', signal, MCP)).resolves.toEqual({
      ok: false,
      reason: 'a sign-in request was refused: the URL is not https',
    });
    expect(asked).toEqual([]);
  });

  it('refuses a body over 256 KiB, a redirect, and what is not a JSON object', async () => {
    const big = { huge: 'x'.repeat(256 * 1024) };
    const { fetch } = tableFetch({
      'https://as.example/big': { status: 200, body: big },
      'https://as.example/moved': { status: 302 },
      'https://as.example/array': { status: 200, body: [1] },
    });
    await expect(getJson(fetch, 'https://as.example/big', signal, MCP)).resolves.toEqual({
      ok: false,
      status: 200,
      reason: 'a response of the sign-in is too large',
    });
    await expect(getJson(fetch, 'https://as.example/moved', signal, MCP)).resolves.toEqual({
      ok: false,
      status: 302,
      reason: 'HTTP status 302',
    });
    await expect(getJson(fetch, 'https://as.example/array', signal, MCP)).resolves.toEqual({
      ok: false,
      status: 200,
      reason: 'the document is not a JSON object',
    });
  });
});

describe('configuration', () => {
  it('allows http only where the server metadata has loopback http', async () => {
    const { fetch } = tableFetch({});
    const registration = { clientId: 'c', source: 'dynamic', authMethod: 'none' } as const;
    const input = {
      redirectUri: 'http://127.0.0.1:1/callback',
      resource: 'https://mcp.example/mcp',
      scope: undefined,
    };
    const remote = configuration(
      { ...AS, authorization_endpoint: 'http://as.example/auth' },
      registration,
      undefined,
      fetch,
      LOCAL_MCP,
    );
    await expect(authorizationRequest(remote, input)).rejects.toThrow();
    const loopback = configuration(
      { ...AS, issuer: 'http://127.0.0.1:9', authorization_endpoint: 'http://127.0.0.1:9/auth' },
      registration,
      undefined,
      fetch,
      LOCAL_MCP,
    );
    const request = await authorizationRequest(loopback, input);
    expect(request.url.startsWith('http://127.0.0.1:9/auth?')).toBe(true);
    // The same loopback http server behind a remote MCP URL: openid-client refuses its http.
    const behindRemote = configuration(
      { ...AS, issuer: 'http://127.0.0.1:9', authorization_endpoint: 'http://127.0.0.1:9/auth' },
      registration,
      undefined,
      fetch,
      MCP,
    );
    await expect(authorizationRequest(behindRemote, input)).rejects.toThrow();
  });
});
