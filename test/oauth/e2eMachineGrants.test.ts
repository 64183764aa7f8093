/**
 * The grants without a person end to end (docs/sign-in.md#sign-in-grants): the built bridge under
 * the SDK 1.x Client, against oidc-provider (client_credentials built in, jwt-bearer registered
 * with `registerGrantType`) and the protected MCP fixture, with the encrypted file store. No
 * browser and no elicitation ever; the token comes at `initialize` and again when it expires;
 * refusals end `initialize` naming the cause. Every run ends with the secret scan of its stdout and
 * stderr (the client secret, the client key, the assertion, every token), and of the token directory.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuthServer, AuthServerOptions } from '../fixtures/oauth/authServer.js';
import { JWT_BEARER } from '../fixtures/oauth/authServer.js';
import { platformKey, signAssertion } from '../fixtures/oauth/jwtAssertion.js';
import { movableClock } from '../fixtures/oauth/movableClock.js';
import type { ProtectedMcpOptions } from '../fixtures/oauth/protectedMcp.js';
import { expectDirectoryClean, grantRuns, privateFile } from './e2eGrantSupport.js';
import { runPlace, startServers } from './e2eSupport.js';
import type { RunOptions, RunPlace } from './e2eSupport.js';
import { e2eSuite } from './e2eSuite.js';

const suite = e2eSuite();
const { closers } = suite;

const SECRET = 'cc-secret-7f3a91d2c4';
const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

const servers = (asOptions: Partial<AuthServerOptions>, mcpOptions: Partial<ProtectedMcpOptions> = {}) =>
  startServers(
    suite.world,
    (close) => closers.push(close),
    { dynamicRegistration: false, ...asOptions },
    mcpOptions,
  );

const place = (): Promise<RunPlace> => runPlace(suite.world, 'machine-');

const ccArgs = (as: AuthServer, clientId: string): string[] => [
  '--grant',
  'client-credentials',
  '--client-id',
  clientId,
  '--client-issuer',
  as.issuer,
];

const { start, refusedStart } = grantRuns(suite);

/** A client of the client-credentials grant that authenticates with SECRET by `method`. */
const secretClient = (
  method: 'client_secret_basic' | 'client_secret_post' = 'client_secret_basic',
  grants: readonly string[] = ['client_credentials'],
) => ({
  client_id: method === 'client_secret_basic' ? 'cc-basic' : 'cc-post',
  client_secret: SECRET,
  token_endpoint_auth_method: method,
  redirect_uris: grants.includes('authorization_code') ? ['http://127.0.0.1/callback'] : [],
  grant_types: grants,
});

/** The options of a client-credentials run of `clientId`, its secret in MCP_BRIDGE_CLIENT_SECRET. */
const secretRun = (as: AuthServer, clientId: string, secret = SECRET): Partial<RunOptions> => ({
  args: ccArgs(as, clientId),
  env: { MCP_BRIDGE_CLIENT_SECRET: secret },
});

describe('client credentials (--grant client-credentials)', () => {
  it('client_secret_basic: a token at initialize, no browser, no elicitation, nothing in clear', async () => {
    const { as, mcp } = await servers({ clients: [secretClient()] });
    const p = await place();
    const run = await start(as, mcp, p, secretRun(as, 'cc-basic'), [SECRET]);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
    expect(as.tokenRequests()).toEqual([
      {
        grantType: 'client_credentials',
        clientId: 'cc-basic',
        resource: [mcp.url],
        scope: 'mcp:read',
        authMethod: 'client_secret_basic',
        status: 200,
      },
    ]);
    expect(as.stats()).toMatchObject({ authorizationRequests: 0, codeGrants: 0, refreshGrants: 0 });
    expect(run.browserLog()).toEqual([]);
    expect(run.elicited).toEqual([]);
    expectDirectoryClean(p, [SECRET, ...as.issuedSecrets()]);
  });

  it('client_secret_post where the server lists only it: the secret goes in the body, not in Authorization', async () => {
    const { as, mcp } = await servers({
      clientAuthMethods: ['client_secret_post'],
      clients: [secretClient('client_secret_post')],
    });
    const run = await start(as, mcp, await place(), secretRun(as, 'cc-post'), [SECRET]);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'p' } }))).toBe('p');
    // authMethod is read from the request: client_secret_post is a client_secret in the form and no Basic header.
    expect(as.tokenRequests().map((r) => [r.grantType, r.clientId, r.authMethod, r.status])).toEqual([
      ['client_credentials', 'cc-post', 'client_secret_post', 200],
    ]);
  });

  it('needs no browser and no consent: works in a sandbox, for a client without elicitation', async () => {
    const { as, mcp } = await servers({ clients: [secretClient()] });
    const options = secretRun(as, 'cc-basic');
    const run = await start(
      as,
      mcp,
      await place(),
      { ...options, env: { ...options.env, SANDBOX_RUNTIME: '1' }, urlElicitation: 'none' },
      [SECRET],
    );
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 's' } }))).toBe('s');
    expect(as.tokenRequests().map((r) => [r.grantType, r.status])).toEqual([['client_credentials', 200]]);
  });

  it('an expired token is obtained again with the same grant (no refresh token)', async () => {
    const clock = movableClock();
    const { as, mcp } = await servers({
      accessTokenTtlSeconds: 2,
      now: clock.now,
      clients: [secretClient()],
    });
    const run = await start(as, mcp, await place(), secretRun(as, 'cc-basic'), [SECRET]);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
    clock.move(3_000);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('b');
    expect(as.tokenRequests().map((r) => [r.grantType, r.status])).toEqual([
      ['client_credentials', 200],
      ['client_credentials', 200],
    ]);
  });

  // The JWS `alg` of each key (RFC 7518 §3.1; RFC 8037 §3.1 names an Ed25519 signature `EdDSA`).
  it.each([
    ['ES256', () => generateKeyPairSync('ec', { namedCurve: 'P-256' })],
    ['RS256', () => generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['EdDSA', () => generateKeyPairSync('ed25519')],
  ] as const)(
    'private_key_jwt with a key of --client-key-file: the assertion header names alg %s, and the server accepts it',
    async (alg, make) => {
      const { privateKey, publicKey } = make();
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1' };
      const { as, mcp } = await servers({
        clients: [
          {
            client_id: 'cc-key',
            token_endpoint_auth_method: 'private_key_jwt',
            redirect_uris: [],
            grant_types: ['client_credentials'],
            jwks: { keys: [jwk] },
          },
        ],
      });
      const p = await place();
      const keyFile = privateFile(p, 'client-key.pem', pem);
      const body = pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
      const run = await start(
        as,
        mcp,
        p,
        { args: [...ccArgs(as, 'cc-key'), '--client-key-file', keyFile] },
        body,
      );
      expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'k' } }))).toBe('k');
      expect(
        as
          .tokenRequests()
          .map((r) => [r.grantType, r.clientId, r.authMethod, r.assertionHeader?.['alg'], r.status]),
      ).toEqual([['client_credentials', 'cc-key', 'private_key_jwt', alg, 200]]);
      expectDirectoryClean(p, [...body, ...as.issuedSecrets()]);
    },
  );

  it('a wrong secret ends initialize naming invalid_client', async () => {
    const { as, mcp } = await servers({ clients: [secretClient()] });
    const wrong = 'wrong-secret-52e8b1';
    const data = await refusedStart(as, mcp, await place(), secretRun(as, 'cc-basic', wrong), [wrong]);
    expect(data).toEqual({
      cause: 'sign_in_error',
      detail: 'the authorization server refused the client-credentials grant: invalid_client',
    });
  });

  it('a client without the grant ends initialize naming the error of the server (oidc-provider: invalid_request)', async () => {
    const { as, mcp } = await servers({
      clients: [
        {
          ...secretClient('client_secret_basic', ['authorization_code', 'refresh_token']),
          client_id: 'code-only',
        },
      ],
    });
    const data = await refusedStart(as, mcp, await place(), secretRun(as, 'code-only'), [SECRET]);
    expect(data).toEqual({
      cause: 'sign_in_error',
      detail: 'the authorization server refused the client-credentials grant: invalid_request',
    });
  });

  it('a server that names another authorization server than --client-issuer gets no credential', async () => {
    const { as, mcp } = await servers({ clients: [secretClient()] });
    const args = [
      '--grant',
      'client-credentials',
      '--client-id',
      'cc-basic',
      '--client-issuer',
      'https://127.0.0.1:9',
    ];
    const data = await refusedStart(
      as,
      mcp,
      await place(),
      { args, env: { MCP_BRIDGE_CLIENT_SECRET: SECRET } },
      [SECRET],
    );
    expect(data).toEqual({ cause: 'issuer_not_registered', detail: 'server/discover' });
    expect(as.tokenRequests()).toEqual([]);
  });

  it('a client key open to other users is refused before any request', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const { as, mcp } = await servers({ clients: [] });
    const p = await place();
    const keyFile = privateFile(p, 'open-key.pem', pem);
    chmodSync(keyFile, 0o644);
    const data = await refusedStart(
      as,
      mcp,
      p,
      { args: [...ccArgs(as, 'cc-key'), '--client-key-file', keyFile] },
      [],
    );
    expect(data).toEqual({
      cause: 'sign_in_failed',
      detail: 'the file of --client-key-file is open to other users: make it private to you (chmod 600)',
    });
    expect(as.tokenRequests()).toEqual([]);
  });
});

describe('workload identity (--grant jwt-bearer)', () => {
  const platform = platformKey();
  const assertion = (as: AuthServer, sub: string, expiresIn = 300): string => {
    const now = Math.floor(Date.now() / 1000);
    return signAssertion(platform.privateKey, {
      iss: 'https://platform.example',
      sub,
      aud: as.issuer,
      iat: now,
      exp: now + expiresIn,
      jti: randomUUID(),
    });
  };
  const client = (grants: readonly string[] = [JWT_BEARER]) => ({
    client_id: 'workload',
    token_endpoint_auth_method: 'none' as const,
    redirect_uris: [],
    grant_types: grants,
  });
  const args = (as: AuthServer, file: string): string[] => [
    '--grant',
    'jwt-bearer',
    '--client-id',
    'workload',
    '--client-issuer',
    as.issuer,
    '--assertion-file',
    file,
  ];

  it('the assertion file is read anew for every grant (the platform rotates it)', async () => {
    const clock = movableClock();
    const { as, mcp } = await servers({
      accessTokenTtlSeconds: 2,
      now: clock.now,
      clients: [client()],
      jwtBearer: { publicKeyPem: platform.publicKeyPem },
    });
    const p = await place();
    const first = assertion(as, 'workload-1');
    const file = privateFile(p, 'assertion.jwt', first);
    const second = assertion(as, 'workload-2');
    const run = await start(as, mcp, p, { args: args(as, file) }, [first, second]);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
    writeFileSync(file, `${second}\n`);
    clock.move(3_000);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('b');
    expect(as.assertionSubjects()).toEqual(['workload-1', 'workload-2']);
    expect(as.tokenRequests().map((r) => [r.grantType, r.resource, r.status])).toEqual([
      [JWT_BEARER, [mcp.url], 200],
      [JWT_BEARER, [mcp.url], 200],
    ]);
    expect(run.browserLog()).toEqual([]);
    expectDirectoryClean(p, [first, second, ...as.issuedSecrets()]);
  });

  it('an expired assertion ends initialize naming invalid_grant, with one request only', async () => {
    const { as, mcp } = await servers({
      clients: [client()],
      jwtBearer: { publicKeyPem: platform.publicKeyPem },
    });
    const p = await place();
    const expired = assertion(as, 'workload-1', -60);
    const file = privateFile(p, 'assertion.jwt', expired);
    const data = await refusedStart(as, mcp, p, { args: args(as, file) }, [expired]);
    expect(data).toEqual({
      cause: 'sign_in_error',
      detail: 'the authorization server refused the jwt-bearer grant: invalid_grant',
    });
    expect(as.tokenRequests().map((r) => [r.grantType, r.status])).toEqual([[JWT_BEARER, 400]]);
  });

  it('a workload the server does not allow ends initialize naming unauthorized_client', async () => {
    const { as, mcp } = await servers({
      clients: [client()],
      jwtBearer: { publicKeyPem: platform.publicKeyPem },
    });
    const p = await place();
    const valid = assertion(as, 'not-allowed');
    const file = privateFile(p, 'assertion.jwt', valid);
    const data = await refusedStart(as, mcp, p, { args: args(as, file) }, [valid]);
    expect(data).toEqual({
      cause: 'sign_in_error',
      detail: 'the authorization server refused the jwt-bearer grant: unauthorized_client',
    });
  });

  it('a scope the server refuses ends initialize naming invalid_scope', async () => {
    const { as, mcp } = await servers(
      { clients: [client()], jwtBearer: { publicKeyPem: platform.publicKeyPem }, scopes: ['mcp:forbidden'] },
      { requiredScope: 'mcp:forbidden' },
    );
    const p = await place();
    const valid = assertion(as, 'workload-1');
    const file = privateFile(p, 'assertion.jwt', valid);
    const data = await refusedStart(as, mcp, p, { args: args(as, file) }, [valid]);
    expect(data).toEqual({
      cause: 'sign_in_error',
      detail: 'the authorization server refused the jwt-bearer grant: invalid_scope',
    });
  });
});
