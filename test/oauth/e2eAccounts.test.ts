/**
 * The account tools end to end (README.md, "Status" and "Logout"): the built bridge signs in at
 * oidc-provider through the SDK 1.x Client with the encrypted file store (e2eSupport.ts); then the
 * built `status` lists the sign-in without any token, and the built `logout` revokes its tokens
 * (RFC 7009): the old refresh token is refused by the server afterwards, and with `--no-revoke` it
 * still works. A revocation endpoint that answers 500 still leaves no local sign-in. Needs
 * `npm run build`.
 */
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { spawnPeer } from '../helpers/rawPeer.js';
import { BRIDGE } from '../helpers/bridgeProcess.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { bridgeEnv } from '../process/httpSupport.js';
import type { AuthServer } from '../fixtures/oauth/authServer.js';
import type { ProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import { openTokenStore } from '../../src/oauth/store/openStore.js';
import type { TokenRecord, TokenStore } from '../../src/oauth/store/types.js';
import { recordingLogger } from './storeTestKit.js';
import { TOKEN_KEY, runPlace, startServers } from './e2eSupport.js';
import { e2eSuite, startFileStoreBridge } from './e2eSuite.js';
import { startRevocationServer } from './revocationServer.js';
import type { RunPlace as Place } from './e2eSupport.js';

const suite = e2eSuite();
const { closers } = suite;

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const tokenDir = (p: Place): string => join(p.stateDir, 'mcp-bridge-sdk', 'vscode', 'tokens');

/** A sign-in of the built bridge at oidc-provider, stored in the file store of a new place. */
async function signedIn(): Promise<{ as: AuthServer; mcp: ProtectedMcp; p: Place; record: TokenRecord }> {
  const { as, mcp } = await startServers(suite.world, (close) => closers.push(close));
  const p = await runPlace(suite.world, 'accounts-');
  const run = await startFileStoreBridge(suite, as, mcp, p);
  const result = await run.client.callTool({ name: 'echo', arguments: { text: 'in' } });
  expect((result as { content: Array<{ text: string }> }).content[0]?.text).toBe('in');
  await run.close();
  const store = await fileStore(p);
  const [key, ...others] = await store.list();
  if (key === undefined || others.length > 0) expect.fail('expected exactly one stored sign-in');
  const record = await store.read(key);
  if (record === undefined) expect.fail('the stored sign-in is not readable');
  return { as, mcp, p, record };
}

async function fileStore(p: Place): Promise<TokenStore> {
  const opened = await openTokenStore(
    { tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: TOKEN_KEY }, service: 's', directory: tokenDir(p) },
    recordingLogger(),
  );
  if (!opened.ok) throw new Error(opened.message);
  return opened.store;
}

/** `mcp-bridge-vscode <args…>` with the file store of `p`: exit code, stdout and stderr lines. */
async function cli(p: Place, args: readonly string[]) {
  const peer = spawnPeer(
    process.execPath,
    [BRIDGE, ...args],
    bridgeEnv({
      XDG_STATE_HOME: p.stateDir,
      MCP_BRIDGE_TOKEN_KEY: TOKEN_KEY,
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus',
    }),
  );
  const { code } = await peer.exit;
  await peer.stdoutClosed;
  return { code, stdout: [...peer.lines], stderr: peer.stderr.filter((line) => line !== '') };
}

const logout = (p: Place, args: readonly string[]) =>
  cli(p, [
    'logout',
    '--ca-file',
    suite.world.caFile,
    '--redirect-port',
    String(p.port),
    '--token-store',
    'file',
    ...args,
  ]);

/** The refresh grant with `refreshToken`, sent straight to oidc-provider's token endpoint. */
async function refreshAt(as: AuthServer, record: TokenRecord, refreshToken: string) {
  const dispatcher = new Agent({ connect: { ca: suite.world.certs.caPem } });
  try {
    const response = await undiciFetch(`${as.issuer}/token`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: record.client.clientId,
        resource: record.resource,
      }).toString(),
    });
    const body = (await response.json()) as { error?: string; access_token?: string };
    return { status: response.status, error: body.error, issued: typeof body.access_token === 'string' };
  } finally {
    await dispatcher.close();
  }
}

describe('status end to end', () => {
  it('lists the sign-in with its literal fields, and never a token', async () => {
    const { as, mcp, p, record } = await signedIn();
    const json = await cli(p, ['status', '--token-store', 'file', '--json']);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout.join('\n')) as Array<Record<string, unknown>>;
    expect(listed).toEqual([
      {
        kind: 'sign-in',
        server: mcp.url,
        account: 'default',
        store: 'file',
        issuer: as.issuer,
        scopes: ['mcp:read'],
        accessTokenExpiresAt: expect.stringMatching(ISO),
        accessTokenExpired: false,
        refreshable: true,
        lastRefreshAt: new Date(record.savedAt).toISOString(),
        client: 'dynamic',
        grant: 'authorization-code',
        redirectUri: `http://127.0.0.1:${p.port}/callback`,
        idpIssuer: null,
      },
    ]);
    expect(Date.parse(String(listed[0]?.['accessTokenExpiresAt']))).toBe(record.expiresAt);

    const text = await cli(p, ['status', '--token-store', 'file', mcp.url]);
    expect(text.code).toBe(0);
    expect(text.stdout).toEqual([
      mcp.url,
      '  account:       default',
      '  store:         file',
      `  issuer:        ${as.issuer}`,
      '  scopes:        mcp:read',
      expect.stringMatching(/^ {2}access token: {2}expires \S+Z \(in (59|60) min\)$/),
      '  refreshable:   yes',
      `  last refresh:  ${new Date(record.savedAt).toISOString()}`,
      '  client:        dynamic',
      '  grant:         authorization-code',
      `  redirect URI:  http://127.0.0.1:${p.port}/callback`,
    ]);
    const secrets = [record.accessToken, record.refreshToken ?? '', ...as.issuedSecrets()];
    expectNoSecrets(
      { lines: [...json.stdout, ...text.stdout], stderr: [...json.stderr, ...text.stderr] },
      secrets,
    );
  }, 60_000);

  it('exits 1 when no sign-in matches, with [] for --json', async () => {
    const { p } = await signedIn();
    const none = await cli(p, ['status', '--token-store', 'file', '--account', 'nobody']);
    expect(none).toEqual({
      code: 1,
      stdout: [],
      stderr: ['mcp-bridge-vscode: vscode: info: status found no stored sign-in of the account "nobody"'],
    });
    const json = await cli(p, ['status', '--token-store', 'file', '--json', 'https://127.0.0.1:1/other']);
    expect(json.code).toBe(1);
    expect(json.stdout).toEqual(['[]']);
  }, 60_000);
});

describe('logout end to end', () => {
  it('revokes at oidc-provider: the old refresh token is refused afterwards', async () => {
    const { as, mcp, p, record } = await signedIn();
    const done = await logout(p, [mcp.url]);
    expect(done.code).toBe(0);
    expect(done.stderr).toEqual([
      `mcp-bridge-vscode: vscode: info: logout revoked the tokens at ${as.issuer}`,
      'mcp-bridge-vscode: vscode: info: logout deleted the stored sign-in of the account "default". The next start signs in again',
    ]);
    expect(await refreshAt(as, record, record.refreshToken ?? '')).toEqual({
      status: 400,
      error: 'invalid_grant',
      issued: false,
    });
    expect(await as.verify(record.accessToken)).toBeUndefined();
    expect((await cli(p, ['status', '--token-store', 'file'])).code).toBe(1);
    expectNoSecrets({ lines: done.stdout, stderr: done.stderr }, [
      record.accessToken,
      record.refreshToken ?? '',
    ]);
  }, 60_000);

  it('--no-revoke deletes the sign-in only: the refresh token still works', async () => {
    const { as, mcp, p, record } = await signedIn();
    const done = await logout(p, ['--no-revoke', mcp.url]);
    expect(done.code).toBe(0);
    expect(done.stderr).toEqual([
      'mcp-bridge-vscode: vscode: info: logout deleted the stored sign-in of the account "default". The next start signs in again',
    ]);
    expect(await refreshAt(as, record, record.refreshToken ?? '')).toEqual({
      status: 200,
      error: undefined,
      issued: true,
    });
    expect((await cli(p, ['status', '--token-store', 'file'])).code).toBe(1);
  }, 60_000);
});

describe('logout with a revocation endpoint that fails', () => {
  it('says so in one line and still deletes the local sign-in', async () => {
    const as = await startRevocationServer({ answer: 'status500' });
    closers.push(() => as.close());
    const p = await runPlace(suite.world, 'accounts-');
    const url = 'http://127.0.0.1:9/mcp';
    const store = await fileStore(p);
    await store.write({
      version: 1,
      url,
      identity: `mcp-bridge-vscode|default|http://127.0.0.1:${p.port}/callback`,
      issuer: as.issuer,
      resource: url,
      client: { clientId: 'client-1', source: 'dynamic', authMethod: 'none' },
      accessToken: 'access-token-5e1f',
      tokenType: 'Bearer',
      refreshToken: 'refresh-token-7a2c',
      savedAt: Date.now(),
    });
    const done = await logout(p, [url]);
    expect(done.code).toBe(0);
    expect(done.stderr).toEqual([
      'mcp-bridge-vscode: vscode: warning: logout did not revoke the tokens: the revocation failed (HTTP status 500); the local sign-in is deleted',
      'mcp-bridge-vscode: vscode: info: logout deleted the stored sign-in of the account "default". The next start signs in again',
    ]);
    expect(as.revocations.map((revocation) => revocation.hint)).toEqual(['refresh_token']);
    expect(await (await fileStore(p)).list()).toEqual([]);
    expectNoSecrets({ lines: done.stdout, stderr: done.stderr }, ['access-token-5e1f', 'refresh-token-7a2c']);
  }, 60_000);
});
