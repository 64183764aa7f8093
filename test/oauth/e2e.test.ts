/**
 * The sign-in end to end (docs/sign-in.md#sign-in-trigger), and the token stores where they need the
 * whole executable (docs/sign-in.md#sign-in-stores): the SDK 1.x Client through the built bridge, against oidc-provider and the protected
 * MCP fixture (e2eSupport.ts). Every test ends with the secret scan of the bridge's stderr and
 * stdout for every token, code and client secret the authorization server issued.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuthServer, AuthServerOptions } from '../fixtures/oauth/authServer.js';
import type { ProtectedMcp, ProtectedMcpOptions } from '../fixtures/oauth/protectedMcp.js';
import { readBrowserLog } from '../fixtures/oauth/testBrowser.js';
import { runPlace, startBridge, startServers } from './e2eSupport.js';
import { e2eSuite } from './e2eSuite.js';
import type { BridgeRun, RunOptions, RunPlace as Session } from './e2eSupport.js';

const suite = e2eSuite({ requireMarkers: true });
const { closers, runs } = suite;

const servers = (
  asOptions: Partial<AuthServerOptions> = {},
  mcpOptions: Partial<ProtectedMcpOptions> = {},
): ReturnType<typeof startServers> =>
  startServers(suite.world, (close) => closers.push(close), asOptions, mcpOptions);

const session = (): Promise<Session> => runPlace(suite.world, 'run-');

async function bridge(
  as: AuthServer,
  mcp: ProtectedMcp,
  s: Session,
  options: Partial<RunOptions> & { extraSecrets?: string[] } = {},
): Promise<BridgeRun> {
  const { extraSecrets = [], ...rest } = options;
  const run = await startBridge(suite.world, {
    url: mcp.url,
    redirectPort: s.port,
    store: 'memory',
    stateDir: s.stateDir,
    browserLog: s.browserLog,
    ...rest,
  });
  runs.push({ run, as, extra: extraSecrets });
  return run;
}

const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

/** The sign-in line of docs/sign-in.md#sign-in-trigger (the authorization URL is public). */
const signInLines = (run: BridgeRun): string[] =>
  run.stderr.filter((line) => line.startsWith('mcp-bridge-vscode: sign in at https://127.0.0.1:'));

describe('the SDK 1.x client through the bridge, with a sign-in', () => {
  it('signs in during initialize through the browser, and the tools work', async () => {
    const { as, mcp } = await servers();
    const run = await bridge(as, mcp, await session());
    expect(run.browserLog()).toEqual([{ argc: 1, startUrl: true, mode: 'follow' }]);
    expect(signInLines(run)).toHaveLength(1);
    expect(as.stats()).toMatchObject({ registrations: 1, authorizationRequests: 1, codeGrants: 1 });
    const tools = await run.client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('echo');
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'signed in' } }))).toBe(
      'signed in',
    );
    expect(run.elicited).toEqual([]);
    expect(
      mcp
        .requests()
        .filter((r) => r.rpcMethod === 'tools/call')
        .every((r) => r.bearer && r.status === 200),
    ).toBe(true);
  });

  it('a 403 insufficient_scope is stepped up once through a URL elicitation, and the call succeeds', async () => {
    const { as, mcp } = await servers({}, { stepUpTools: [{ name: 'add', scope: 'mcp:write' }] });
    const run = await bridge(as, mcp, await session());
    expect(text(await run.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(run.elicited).toHaveLength(1);
    expect(run.elicited[0]?.message).toBe(
      'The upstream server needs a new sign-in. Open the URL and sign in at the authorization server.',
    );
    expect(await run.elicited[0]?.done).toBeInstanceOf(URL);
    // One browser start in all: the step-up after initialized never opens one (§6.7).
    expect(run.browserLog()).toHaveLength(1);
    expect(as.authorizations().map((a) => a.scope?.split(' ').sort().join(' '))).toEqual([
      expect.stringContaining('mcp:read'),
      expect.stringContaining('mcp:write'),
    ]);
    const calls = mcp
      .requests()
      .filter((r) => r.rpcMethod === 'tools/call')
      .map((r) => r.status);
    expect(calls).toEqual([403, 200]);
    expect(signInLines(run)).toHaveLength(2);
  });

  it('a second 403 after the step-up fails that call alone', async () => {
    const { as, mcp } = await servers(
      { scopes: ['mcp:read', 'mcp:write', 'mcp:admin'] },
      { stepUpTools: [{ name: 'structured', scope: 'mcp:admin' }] },
    );
    // Behind the bearer check the server still refuses the tool: the step-up cannot help.
    mcp.fixture.intercept = (request) =>
      request.method === 'tools/call' &&
      (request.body as { params?: { name?: string } }).params?.name === 'structured'
        ? {
            status: 403,
            headers: {
              'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:read mcp:admin mcp:owner"',
            },
          }
        : undefined;
    const run = await bridge(as, mcp, await session());
    const failure = await run.client.callTool({ name: 'structured', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error as { code?: number; data?: unknown },
    );
    expect(failure?.code).toBe(-32603);
    expect(failure?.data).toEqual({
      cause: 'access_refused',
      detail: 'tools/call: the upstream server refused the access after the sign-in, HTTP status 403',
    });
    expect(run.elicited).toHaveLength(1);
    // The other tools still work on the same connection.
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe(
      'still here',
    );
  });

  it('a sign-in needed after initialized goes through a URL elicitation that the client accepts', async () => {
    const { as, mcp } = await servers();
    const run = await bridge(as, mcp, await session());
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'one' } }))).toBe('one');
    // The server forgets every token: the next request gets 401 and the refresh is refused.
    as.revokeAccessTokens();
    as.revokeRefreshTokens();
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'two' } }))).toBe('two');
    expect(run.elicited).toHaveLength(1);
    expect(await run.elicited[0]?.done).toBeInstanceOf(URL);
    expect(run.browserLog()).toHaveLength(1);
    expect(as.stats()).toMatchObject({ authorizationRequests: 2, codeGrants: 2 });
    const complete = run.stdout.filter((line) => line.includes('"notifications/elicitation/complete"'));
    expect(complete).toEqual([
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/elicitation/complete',
        params: { elicitationId: run.elicited[0]?.elicitationId },
      }),
    ]);
  });

  it('a client without URL elicitation: a sign-in after initialized fails that call, and no browser opens', async () => {
    const { as, mcp } = await servers();
    const run = await bridge(as, mcp, await session(), { urlElicitation: false });
    expect(run.stderr).toContain(
      'mcp-bridge-vscode: bridge: info: the client did not declare URL elicitation: a later sign-in fails, ' +
        'and a restart of the server signs in again',
    );
    as.revokeAccessTokens();
    as.revokeRefreshTokens();
    const failure = await run.client.callTool({ name: 'echo', arguments: { text: 'x' } }).then(
      () => undefined,
      (error: unknown) => error as { code?: number; data?: { cause?: string; detail?: string } },
    );
    expect(failure?.data?.cause).toBe('reauthorization_required');
    expect(failure?.data?.detail).toBe('no_consent');
    expect(run.browserLog()).toHaveLength(1);
  });
});

describe('token stores end to end', () => {
  it('--token-store file keeps the sign-in for the next start: no browser, no authorization request', async () => {
    const { as, mcp } = await servers();
    const s = await session();
    const first = await bridge(as, mcp, s, { store: 'file' });
    expect(first.stderr).toContain(
      `mcp-bridge-vscode: vscode: info: the tokens are in encrypted files in ${join(s.stateDir, 'mcp-bridge-sdk', 'vscode', 'tokens')}`,
    );
    expect(text(await first.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
    await first.close();
    const seen = mcp.requests().length;
    const second = await bridge(as, mcp, s, { store: 'file' });
    // The stored token goes on the first request: no 401 round trip.
    expect(mcp.requests()[seen]).toMatchObject({ rpcMethod: 'server/discover', bearer: true, status: 200 });
    expect(text(await second.client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('b');
    expect(second.browserLog()).toHaveLength(1);
    expect(as.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1 });
    expect(signInLines(second)).toEqual([]);
  });

  it('--token-store memory signs in again at the next start', async () => {
    const { as, mcp } = await servers();
    const s = await session();
    const first = await bridge(as, mcp, s, { store: 'memory' });
    expect(first.stderr).toContain(
      'mcp-bridge-vscode: vscode: info: the tokens stay in memory (--token-store memory)',
    );
    await first.close();
    const second = await bridge(as, mcp, s, { store: 'memory' });
    expect(text(await second.client.callTool({ name: 'echo', arguments: { text: 'c' } }))).toBe('c');
    expect(second.browserLog()).toHaveLength(2);
    expect(as.stats()).toMatchObject({ authorizationRequests: 2, codeGrants: 2 });
  });
});

describe('a pre-registered client with a secret (docs/sign-in.md#sign-in-registration)', () => {
  it('signs in with the secret of MCP_BRIDGE_CLIENT_SECRET, which appears nowhere in the output', async () => {
    const secret = 'e2e-client-secret-7d31c0a9';
    const s = await session();
    const { as, mcp } = await servers({
      dynamicRegistration: false,
      clients: [
        {
          client_id: 'bridge-e2e',
          client_secret: secret,
          token_endpoint_auth_method: 'client_secret_basic',
          redirect_uris: [`http://127.0.0.1:${s.port}/callback`],
        },
      ],
    });
    const run = await bridge(as, mcp, s, {
      args: ['--client-id', 'bridge-e2e', '--client-issuer', as.issuer],
      env: { MCP_BRIDGE_CLIENT_SECRET: secret },
      extraSecrets: [secret],
    });
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'pre' } }))).toBe('pre');
    expect(as.stats().registrations).toBe(0);
    expect(as.tokenRequests().map((r) => [r.grantType, r.clientId, r.authMethod])).toEqual([
      ['authorization_code', 'bridge-e2e', 'client_secret_basic'],
    ]);
  });
});

describe('the sandbox of VS Code (docs/sign-in.md#sign-in-sandbox)', () => {
  it('SANDBOX_RUNTIME=1: initialize fails at once with cause sandbox, with no sign-in line and no browser', async () => {
    const { as, mcp } = await servers();
    const s = await session();
    const failure = await startBridge(suite.world, {
      url: mcp.url,
      redirectPort: s.port,
      store: 'memory',
      stateDir: s.stateDir,
      browserLog: s.browserLog,
      env: { SANDBOX_RUNTIME: '1' },
    }).then(
      () => undefined,
      (error: unknown) => error as { code?: number; data?: { cause?: string }; stderr?: string[] },
    );
    expect(failure?.code).toBe(-32603);
    expect(failure?.data?.cause).toBe('sandbox');
    expect(failure?.stderr?.filter((line) => line.includes('sign in at'))).toEqual([]);
    expect(readBrowserLog(s.browserLog)).toEqual([]);
    expect(as.stats()).toMatchObject({ authorizationRequests: 0, registrations: 0 });
    // Only the request that learnt of the sign-in: no metadata, no retry, no token.
    expect(
      mcp.requests().map(({ path, rpcMethod, status, bearer }) => ({ path, rpcMethod, status, bearer })),
    ).toEqual([{ path: '/mcp', rpcMethod: 'server/discover', status: 401, bearer: false }]);
  });
});
