/**
 * An authorization server that advertises client ID metadata documents but refuses the
 * document's client (README.md "Sign-in and tokens"): the redirect, or the token endpoint,
 * answers `invalid_client` or `unauthorized_client`. The bridge says so in one line, registers a
 * client dynamically and starts that sign-in again once (a second browser start before
 * `initialized`, a second question after it); the refusal is remembered for the issuer, and the
 * stored dynamic client serves the next process. Without a registration endpoint the second
 * attempt is `registration_unavailable`. `--client-metadata-url none` skips the document.
 * The hand-written server of test/fixtures/oauth/handAuthServer.ts refuses every https client_id.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startHandAuthServer } from '../fixtures/oauth/handAuthServer.js';
import type { HandAuthServer, HandAuthServerOptions } from '../fixtures/oauth/handAuthServer.js';
import { createMemoryStore } from '../../src/oauth/store/memoryStore.js';
import { fakeConsent, request, rewritingReceiver, signInSuite } from './signInHarness.js';
import type { Harness } from './signInHarness.js';

const suite = signInSuite();
const { defer, make, mcpFor } = suite;

const DOCUMENT = 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json';
const LINE =
  'the authorization server refused the client metadata document of the bridge (invalid_client): ' +
  'the bridge registers a client dynamically and starts the sign-in again';

/** A port that was free a moment ago (the receiver listens on it exclusively). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function hand(options: HandAuthServerOptions): Promise<HandAuthServer> {
  const as = await startHandAuthServer({
    tls: suite.certs,
    caPem: suite.certs.caPem,
    metadataDocuments: true,
    tokenEndpointAuth: 'none',
    ...options,
  });
  defer(() => as.close());
  return as;
}

const warnings = (h: Harness): string[] =>
  h.logs.filter((line) => line.level === 'warn' || line.level === 'err').map((line) => line.text);

describe('the server refuses the client of the metadata document', () => {
  it.each(['invalid_client', 'unauthorized_client'] as const)(
    'redirect with %s: one line, a dynamic client, the sign-in once more, with a second browser start',
    async (code) => {
      const as = await hand({ registration: true, documentRefusal: { code } });
      const mcp = await mcpFor(as);
      // The document lists the default redirect port: give the sign-in that port.
      const port = await freePort();
      const store = createMemoryStore();
      const h = make({ config: { url: mcp.url, redirectPort: port, defaultMetadataPort: port }, store });
      expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
      const clients = as.authorizations().map((a) => a.clientId);
      expect(clients).toEqual([DOCUMENT, expect.stringMatching(/^hand-[0-9a-f]{12}$/)]);
      expect(as.stats()).toMatchObject({ registrations: 1, codeGrants: 1 });
      expect(warnings(h)).toEqual([LINE.replace('invalid_client', code)]);
      expect(h.opened).toHaveLength(2);
      expect(h.signInLines).toHaveLength(2);
      const record = await store.read({
        url: mcp.url,
        identity: `mcp-bridge-vscode|default|http://127.0.0.1:${port}/callback`,
      });
      expect(record?.client).toEqual({ clientId: clients[1], source: 'dynamic', authMethod: 'none' });
    },
  );

  it('a refusal at the token endpoint is one too', async () => {
    const as = await hand({ registration: true, documentRefusal: { code: 'invalid_client', at: 'token' } });
    const mcp = await mcpFor(as);
    const port = await freePort();
    const h = make({ config: { url: mcp.url, redirectPort: port, defaultMetadataPort: port } });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.tokenRequests().map((t) => [t.clientId, t.status])).toEqual([
      [DOCUMENT, 401],
      [expect.stringMatching(/^hand-/), 200],
    ]);
    expect(warnings(h)).toEqual([LINE]);
  });

  it('after initialized: asks the client a second time, and completes both questions', async () => {
    const as = await hand({ registration: true, documentRefusal: { code: 'invalid_client' } });
    const mcp = await mcpFor(as);
    const port = await freePort();
    const consent = fakeConsent(suite.certs.caPem);
    consent.phaseNow = 'ready';
    const h = make({ config: { url: mcp.url, redirectPort: port, defaultMetadataPort: port }, consent });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.consent.asked.map((q) => q.elicitationId)).toEqual(['sign-in-1', 'sign-in-2']);
    expect(h.consent.completed).toEqual(['sign-in-1', 'sign-in-2']);
    expect(h.opened).toEqual([]);
    expect(warnings(h)).toEqual([LINE]);
  });

  it('remembers the refusal: later sign-ins of the process and the next process use the dynamic client', async () => {
    const as = await hand({ registration: true, documentRefusal: { code: 'invalid_client' } });
    const mcp = await mcpFor(as);
    const port = await freePort();
    const store = createMemoryStore();
    const config = { url: mcp.url, redirectPort: port, defaultMetadataPort: port };
    const h = make({ config, store });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    // The server forgets every token: the next request needs a new interactive sign-in.
    as.revokeAccessTokens();
    as.revokeRefreshTokens();
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    // A new process with the same store.
    as.revokeAccessTokens();
    as.revokeRefreshTokens();
    const next = make({ config, store });
    await next.auth.load();
    expect((await request(suite.net.fetch, mcp.url, next.auth)).status).toBe(200);
    const clients = as.authorizations().map((a) => a.clientId);
    expect(clients).toHaveLength(4);
    expect(clients[0]).toBe(DOCUMENT);
    expect(new Set(clients.slice(1)).size).toBe(1);
    expect(clients[1]).toMatch(/^hand-/);
    expect(as.stats().registrations).toBe(1);
    expect(warnings(h)).toEqual([LINE, expect.stringContaining('refused the refresh')]);
    expect(warnings(next).filter((line) => line.includes('metadata document'))).toEqual([]);
  });

  it('without a registration endpoint: the line, then registration_unavailable, no second browser', async () => {
    const as = await hand({ registration: false, documentRefusal: { code: 'invalid_client' } });
    const mcp = await mcpFor(as);
    const port = await freePort();
    const h = make({ config: { url: mcp.url, redirectPort: port, defaultMetadataPort: port } });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'registration_unavailable',
      detail: `the redirect URI http://127.0.0.1:${port}/callback`,
    });
    expect(warnings(h)).toEqual([
      'the authorization server refused the client metadata document of the bridge (invalid_client), ' +
        'and it offers no dynamic client registration',
    ]);
    expect(as.authorizations().map((a) => a.clientId)).toEqual([DOCUMENT]);
    expect(h.opened).toHaveLength(1);
    expect(h.signInLines).toHaveLength(1);
  });

  it('a dynamic client refused by the server is sign_in_error, with no second sign-in', async () => {
    const as = await hand({ registration: true, documentRefusal: { code: 'invalid_client' } });
    const mcp = await mcpFor(as);
    const h = make({
      config: { url: mcp.url },
      // Every redirect of this server carries error=invalid_client, also for its dynamic client.
      deps: {
        startReceiver: rewritingReceiver((callback) => {
          const url = new URL(callback);
          url.searchParams.delete('code');
          url.searchParams.set('error', 'invalid_client');
          return url;
        }),
      },
    });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_error',
      detail: 'the error code is invalid_client',
    });
    expect(as.authorizations().map((a) => a.clientId)).toEqual([expect.stringMatching(/^hand-/)]);
    expect(warnings(h)).toEqual([
      'The authorization server sent an error for the sign-in. The error code is invalid_client.',
    ]);
  });
});

describe('--client-metadata-url none', () => {
  it('registers dynamically where the server supports documents, and fetches none', async () => {
    const as = await hand({ registration: true });
    const mcp = await mcpFor(as);
    const port = await freePort();
    const store = createMemoryStore();
    const h = make({
      config: { url: mcp.url, redirectPort: port, defaultMetadataPort: port, clientMetadataUrl: 'none' },
      store,
    });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.metadataDocumentFetches()).toEqual([]);
    expect(as.authorizations().map((a) => a.clientId)).toEqual([expect.stringMatching(/^hand-/)]);
    expect(as.stats().registrations).toBe(1);
    // `none` keeps the identity of the default document.
    const record = await store.read({
      url: mcp.url,
      identity: `mcp-bridge-vscode|default|http://127.0.0.1:${port}/callback`,
    });
    expect(record?.client.source).toBe('dynamic');
  });
});
