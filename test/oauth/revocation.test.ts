/**
 * Token revocation at logout (RFC 7009, src/oauth/revocation.ts) against a small hand-written
 * authorization server on loopback http: the order of the tokens, the client authentication,
 * the time bound, and the outcome lines (the server: revocationServer.ts). The end-to-end test with
 * oidc-provider is e2eAccounts.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { guardedFetch } from '../../src/oauth/http.js';
import { outcomeLine, revokeRecord, secretOfRecord } from '../../src/oauth/revocation.js';
import type { TokenRecord } from '../../src/oauth/store/types.js';
import { makeRecord } from './storeTestKit.js';
import { startRevocationServer } from './revocationServer.js';
import type { RevocationServer } from './revocationServer.js';

const servers: RevocationServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(options: Parameters<typeof startRevocationServer>[0]): Promise<RevocationServer> {
  const server = await startRevocationServer(options);
  servers.push(server);
  return server;
}

const URL_OF_MCP = 'http://127.0.0.1:9/mcp';

const recordAt = (issuer: string, overrides: Partial<TokenRecord> = {}): TokenRecord =>
  makeRecord({ url: URL_OF_MCP, resource: URL_OF_MCP, issuer, ...overrides });

const fetch = guardedFetch(globalThis.fetch, URL_OF_MCP);

describe('revokeRecord', () => {
  it('revokes the refresh token first, then the access token, with the client ID of a public client', async () => {
    const as = await start({ answer: 'ok' });
    const record = recordAt(as.issuer);
    const outcome = await revokeRecord({ record, fetch });
    expect(outcome).toEqual({ kind: 'revoked' });
    expect(as.revocations).toEqual([
      {
        token: 'refresh-token-7e41aa',
        hint: 'refresh_token',
        clientId: 'client-1',
        secretInBody: null,
        basic: false,
      },
      {
        token: 'access-token-9f3b2c',
        hint: 'access_token',
        clientId: 'client-1',
        secretInBody: null,
        basic: false,
      },
    ]);
    expect(outcomeLine(record, outcome)).toBe(`logout revoked the tokens at ${as.issuer}`);
  });

  it('a dynamic client with client_secret_post sends its stored secret in the body', async () => {
    const as = await start({ answer: 'ok' });
    const record = recordAt(as.issuer, {
      client: {
        clientId: 'c-2',
        source: 'dynamic',
        authMethod: 'client_secret_post',
        clientSecret: 'dyn-secret',
      },
    });
    const secret = secretOfRecord(record, {});
    expect(secret).toBe('dyn-secret');
    expect(await revokeRecord({ record, fetch, ...(secret === undefined ? {} : { secret }) })).toEqual({
      kind: 'revoked',
    });
    expect(as.revocations.map((r) => [r.hint, r.clientId, r.secretInBody])).toEqual([
      ['refresh_token', 'c-2', 'dyn-secret'],
      ['access_token', 'c-2', 'dyn-secret'],
    ]);
  });

  it('a pre-registered client gets MCP_BRIDGE_CLIENT_SECRET only for its issuer; without it nothing is sent', async () => {
    const as = await start({ answer: 'ok' });
    const record = recordAt(as.issuer, {
      client: { clientId: 'pre', source: 'pre-registered', authMethod: 'client_secret_basic' },
    });
    expect(
      secretOfRecord(record, { clientIssuer: 'https://other.example', clientSecret: 'env-secret' }),
    ).toBe(undefined);
    expect(secretOfRecord(record, { clientIssuer: as.issuer, clientSecret: 'env-secret' })).toBe(
      'env-secret',
    );
    const outcome = await revokeRecord({ record, fetch });
    expect(outcome).toEqual({ kind: 'failed', detail: 'the secret of the client is not available' });
    expect(as.revocations).toEqual([]);
  });

  it('an error of the endpoint is the outcome, with its status and code', async () => {
    const as = await start({ answer: 'error' });
    const record = recordAt(as.issuer);
    const outcome = await revokeRecord({ record, fetch });
    expect(outcome).toEqual({ kind: 'failed', detail: 'HTTP status 400, invalid_client' });
    expect(outcomeLine(record, outcome)).toBe(
      'logout did not revoke the tokens: the revocation failed (HTTP status 400, invalid_client); the local sign-in is deleted',
    );
  });

  it('a server without a revocation endpoint gets no revocation request', async () => {
    const as = await start({ answer: 'ok', endpoint: false });
    const record = recordAt(as.issuer);
    const outcome = await revokeRecord({ record, fetch });
    expect(outcome).toEqual({ kind: 'no_endpoint' });
    expect(outcomeLine(record, outcome)).toBe(
      `logout did not revoke the tokens: the authorization server ${as.issuer} has no revocation endpoint`,
    );
    expect(as.revocations).toEqual([]);
  });

  it('a server that never answers ends the revocation at the time bound', async () => {
    const as = await start({ answer: 'hang' });
    const started = Date.now();
    const outcome = revokeRecord({ record: recordAt(as.issuer), fetch, timeoutMs: 1_000 });
    await as.arrived;
    expect(await outcome).toEqual({
      kind: 'failed',
      detail: 'the authorization server did not answer within 1 s',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a revocation endpoint that is not a sign-in URL is refused before any request', async () => {
    const as = await start({ answer: 'ok', endpointUrl: 'http://revoke.example.test/revoke' });
    const outcome = await revokeRecord({ record: recordAt(as.issuer), fetch });
    expect(outcome).toEqual({
      kind: 'failed',
      detail: 'the revocation endpoint is not usable: the URL is not https',
    });
    expect(as.revocations).toEqual([]);
  });
});
