/**
 * The registration order of docs/sign-in.md#sign-in-registration / protocol-mapping docs/cli.md#cli-forms against real servers:
 * pre-registered with client_secret_basic (oidc-provider) and client_secret_post (hand server),
 * the client ID metadata document, dynamic registration when the redirect port is not the
 * default, issuer_not_registered, registration_unavailable and registration_failed.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startAuthServer } from '../fixtures/oauth/authServer.js';
import type { AuthServer, AuthServerOptions } from '../fixtures/oauth/authServer.js';
import { startHandAuthServer } from '../fixtures/oauth/handAuthServer.js';
import type { HandAuthServer, HandAuthServerOptions } from '../fixtures/oauth/handAuthServer.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { createMemoryStore } from '../../src/oauth/store/memoryStore.js';
import { answeringAt, href, signInSuite, request } from './signInHarness.js';

const suite = signInSuite();
const { defer, make, mcpFor } = suite;

/** A port that was free a moment ago (the receiver listens on it exclusively). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function oidc(options: Partial<AuthServerOptions>): Promise<AuthServer> {
  const as = await startAuthServer({ tls: suite.certs, caPem: suite.certs.caPem, ...options });
  defer(() => as.close());
  return as;
}

async function hand(options: HandAuthServerOptions): Promise<HandAuthServer> {
  const as = await startHandAuthServer({ tls: suite.certs, caPem: suite.certs.caPem, ...options });
  defer(() => as.close());
  return as;
}

const SECRET = 'client-secret-5e1b9c';

describe('pre-registered client (--client-id, --client-issuer, MCP_BRIDGE_CLIENT_SECRET)', () => {
  it('authenticates with client_secret_basic where the server offers it, and never stores the secret', async () => {
    const port = await freePort();
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    const as = await oidc({
      dynamicRegistration: false,
      clients: [
        {
          client_id: 'pre-basic',
          client_secret: SECRET,
          token_endpoint_auth_method: 'client_secret_basic',
          redirect_uris: [redirectUri],
        },
      ],
    });
    const mcp = await mcpFor(as);
    const store = createMemoryStore();
    const h = make({
      config: {
        url: mcp.url,
        redirectPort: port,
        clientId: 'pre-basic',
        clientIssuer: as.issuer,
        clientSecret: SECRET,
      },
      store,
    });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.tokenRequests().map((t) => [t.grantType, t.clientId, t.authMethod])).toEqual([
      ['authorization_code', 'pre-basic', 'client_secret_basic'],
    ]);
    const record = await store.read({
      url: mcp.url,
      identity: `mcp-bridge-vscode|default|${redirectUri}|client=pre-basic`,
    });
    expect(record?.client).toEqual({
      clientId: 'pre-basic',
      source: 'pre-registered',
      authMethod: 'client_secret_basic',
    });
    expect(JSON.stringify(record)).not.toContain(SECRET);
    expectNoSecrets({ lines: [], stderr: [...h.logs.map((l) => l.text), ...h.signInLines] }, [
      SECRET,
      ...h.sentSecrets,
    ]);
  });

  it('authenticates with client_secret_post where the server offers only that', async () => {
    const as = await hand({
      tokenEndpointAuth: 'client_secret_post',
      clients: [{ clientId: 'pre-post', clientSecret: SECRET, redirectUris: ['http://127.0.0.1/callback'] }],
    });
    const mcp = await mcpFor(as);
    const h = make({
      config: { url: mcp.url, clientId: 'pre-post', clientIssuer: as.issuer, clientSecret: SECRET },
    });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.tokenRequests().map((t) => [t.grantType, t.clientId, t.authMethod, t.status])).toEqual([
      ['authorization_code', 'pre-post', 'client_secret_post', 200],
    ]);
    expectNoSecrets({ lines: [], stderr: [...h.logs.map((l) => l.text), ...h.signInLines] }, [
      SECRET,
      ...h.sentSecrets,
    ]);
  });

  it('sends the secret to no server without --client-issuer', async () => {
    const as = await hand({
      tokenEndpointAuth: 'client_secret_post',
      clients: [{ clientId: 'pre-post', clientSecret: SECRET, redirectUris: ['http://127.0.0.1/callback'] }],
    });
    const mcp = await mcpFor(as);
    const h = make({ config: { url: mcp.url, clientId: 'pre-post', clientSecret: SECRET } });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({ code: 'sign_in_failed' });
    expect(as.tokenRequests().map((t) => t.authMethod)).toEqual(['none']);
    expect(h.sentSecrets).not.toContain(SECRET);
  });

  it('refuses another issuer than --client-issuer with issuer_not_registered, before any line', async () => {
    const as = await hand({ registration: true, tokenEndpointAuth: 'none' });
    const mcp = await mcpFor(as);
    const h = make({
      config: {
        url: mcp.url,
        clientId: 'pre-post',
        clientIssuer: 'https://other.example',
        clientSecret: SECRET,
      },
    });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'issuer_not_registered',
    });
    expect(as.stats()).toEqual({
      authorizationRequests: 0,
      codeGrants: 0,
      refreshGrants: 0,
      registrations: 0,
    });
    expect(h.signInLines).toEqual([]);
    expect(h.opened).toEqual([]);
  });
});

describe('client ID metadata document', () => {
  it('uses --client-metadata-url as the client_id where the server supports documents', async () => {
    const as = await hand({ metadataDocuments: true, registration: true, tokenEndpointAuth: 'none' });
    const mcp = await mcpFor(as);
    const port = await freePort();
    const documents = await oidc({});
    const documentUrl = documents.hostClientMetadataDocument({
      client_name: 'mcp-bridge-vscode (mcp-bridge-sdk)',
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    const store = createMemoryStore();
    const h = make({ config: { url: mcp.url, redirectPort: port, clientMetadataUrl: documentUrl }, store });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.metadataDocumentFetches()).toEqual([documentUrl]);
    expect(as.stats().registrations).toBe(0);
    expect(as.tokenRequests().map((t) => [t.clientId, t.authMethod])).toEqual([[documentUrl, 'none']]);
    const record = await store.read({
      url: mcp.url,
      identity: `mcp-bridge-vscode|default|http://127.0.0.1:${port}/callback|cimd=${documentUrl}`,
    });
    expect(record?.client).toEqual({
      clientId: documentUrl,
      source: 'metadata-document',
      authMethod: 'none',
    });
  });

  it('registers dynamically, with the info line, when the redirect port is not the default one', async () => {
    const as = await hand({ metadataDocuments: true, registration: true, tokenEndpointAuth: 'none' });
    const mcp = await mcpFor(as);
    const port = await freePort();
    const h = make({ config: { url: mcp.url, redirectPort: port } });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.metadataDocumentFetches()).toEqual([]);
    expect(as.stats().registrations).toBe(1);
    expect(h.logs).toContainEqual({
      scope: 'oauth',
      level: 'info',
      text:
        'the client metadata document of the bridge has only the redirect port 41894. ' +
        `With --redirect-port ${port}, the bridge uses dynamic client registration.`,
    });
  });

  it('refuses a --client-metadata-url that is not https', async () => {
    const as = await hand({ metadataDocuments: true, registration: true, tokenEndpointAuth: 'none' });
    const mcp = await mcpFor(as);
    const h = make({ config: { url: mcp.url, clientMetadataUrl: 'http://127.0.0.1:9/client.json' } });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'invalid_client_metadata_url',
    });
    expect(as.stats().authorizationRequests).toBe(0);
  });
});

describe('dynamic client registration', () => {
  it('registers a native public client with the exact redirect URI', async () => {
    const as = await hand({ registration: true, tokenEndpointAuth: 'none' });
    const mcp = await mcpFor(as);
    const bodies: unknown[] = [];
    const h = make({
      config: { url: mcp.url },
      deps: {
        fetch: (input, init) => {
          if (href(input).endsWith('/register'))
            bodies.push(JSON.parse(typeof init?.body === 'string' ? init.body : ''));
          return suite.net.fetch(input, init);
        },
      },
    });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({
      application_type: 'native',
      client_name: 'mcp-bridge-vscode (mcp-bridge-sdk)',
      redirect_uris: [expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(as.authorizations()[0]?.redirectUri).toBe(
      (bodies[0] as { redirect_uris: string[] }).redirect_uris[0],
    );
  });

  it('is registration_unavailable without documents and without a registration endpoint', async () => {
    const as = await hand({ registration: false, tokenEndpointAuth: 'none' });
    const mcp = await mcpFor(as);
    const port = await freePort();
    const h = make({ config: { url: mcp.url, redirectPort: port } });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'registration_unavailable',
      detail: `the redirect URI http://127.0.0.1:${port}/callback`,
    });
    expect(h.signInLines).toEqual([]);
    expect(h.opened).toEqual([]);
  });

  it('is registration_failed with the HTTP status and the error code when the server refuses', async () => {
    const as = await hand({ registration: true, tokenEndpointAuth: 'none' });
    const mcp = await mcpFor(as);
    const h = make({
      config: { url: mcp.url },
      deps: {
        // The server's answer to the registration: a refusal (RFC 7591 §3.2.2).
        fetch: answeringAt(suite.net.fetch, '/register', 400, { error: 'invalid_redirect_uri' }),
      },
    });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'registration_failed',
      detail: 'HTTP status 400, invalid_redirect_uri',
    });
    expect(as.stats().authorizationRequests).toBe(0);
  });
});
