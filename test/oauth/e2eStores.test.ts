/**
 * The token stores and the sign-in lock end to end (docs/sign-in.md#sign-in-stores,
 * docs/sign-in.md#sign-in-lock): the built bridge under the SDK 1.x Client, against
 * oidc-provider and the protected MCP fixture (e2eSupport.ts), with the encrypted file store:
 * silent refresh, logout and a new sign-in, accounts, and several processes that share one sign-in.
 * Every run ends with the secret scan of its stderr and stdout.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { spawnPeer } from '../helpers/rawPeer.js';
import { BRIDGE } from '../helpers/bridgeProcess.js';
import { bridgeEnv } from '../process/httpSupport.js';
import type { AuthServer, AuthServerOptions } from '../fixtures/oauth/authServer.js';
import { readBrowserLog } from '../fixtures/oauth/testBrowser.js';
import { movableClock } from '../fixtures/oauth/movableClock.js';
import type { ProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import { TOKEN_KEY, runPlace, startServers } from './e2eSupport.js';
import { e2eSuite, startFileStoreBridge } from './e2eSuite.js';
import type { RunOptions, RunPlace as Place } from './e2eSupport.js';

const suite = e2eSuite();
const { closers } = suite;

const servers = (asOptions: Partial<AuthServerOptions> = {}): ReturnType<typeof startServers> =>
  startServers(suite.world, (close) => closers.push(close), asOptions);

const place = (): Promise<Place> => runPlace(suite.world, 'stores-');

const bridge = (as: AuthServer, mcp: ProtectedMcp, p: Place, options: Partial<RunOptions> = {}) =>
  startFileStoreBridge(suite, as, mcp, p, options);

const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

/** `mcp-bridge-vscode logout …` with the file store of `p`: exit code and stderr. */
async function logout(p: Place, args: readonly string[]) {
  const peer = spawnPeer(
    process.execPath,
    [BRIDGE, 'logout', '--redirect-port', String(p.port), '--token-store', 'file', ...args],
    bridgeEnv({ XDG_STATE_HOME: p.stateDir, MCP_BRIDGE_TOKEN_KEY: TOKEN_KEY }),
  );
  const { code } = await peer.exit;
  await peer.stdoutClosed;
  return { code, stdout: peer.lines, stderr: peer.stderr.filter((line) => line !== '') };
}

describe('the file store end to end', () => {
  it('an expired access token is refreshed silently: the server sees one refresh, no browser', async () => {
    const clock = movableClock();
    const { as, mcp } = await servers({ accessTokenTtlSeconds: 600, now: clock.now });
    const p = await place();
    const run = await bridge(as, mcp, p);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
    // The access token lives 600 s on the clock of the authorization server's storage: moved past it
    // (the bridge's own clock sees 600 s, so a slow machine never refreshes before the move).
    clock.move(601_000);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('b');
    expect(as.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1, refreshGrants: 1 });
    expect(run.browserLog()).toHaveLength(1);
    expect(run.elicited).toEqual([]);
  });

  it('logout deletes the stored sign-in, and the next start signs in again', async () => {
    const { as, mcp } = await servers();
    const p = await place();
    const first = await bridge(as, mcp, p);
    await first.close();
    const done = await logout(p, [mcp.url]);
    expect(done.code).toBe(0);
    expect(done.stdout).toEqual([]);
    expect(
      done.stderr.some((line) => line.includes('logout deleted the stored sign-in of the account "default"')),
    ).toBe(true);
    const second = await bridge(as, mcp, p);
    expect(text(await second.client.callTool({ name: 'echo', arguments: { text: 'again' } }))).toBe('again');
    expect(second.browserLog()).toHaveLength(2);
    expect(as.stats()).toMatchObject({ authorizationRequests: 2 });
  });

  it('logout --all deletes every stored sign-in and the token directory', async () => {
    const { as, mcp } = await servers();
    const p = await place();
    await (await bridge(as, mcp, p, { args: ['--account', 'one'] })).close();
    await (await bridge(as, mcp, p, { args: ['--account', 'two'] })).close();
    const tokens = join(p.stateDir, 'mcp-bridge-sdk', 'vscode', 'tokens');
    expect(existsSync(tokens)).toBe(true);
    const done = await logout(p, ['--all']);
    expect(done.code).toBe(0);
    expect(done.stderr.some((line) => line.includes('logout deleted 2 stored sign-ins'))).toBe(true);
    expect(existsSync(tokens)).toBe(false);
  });

  it('two accounts of the same server sign in separately', async () => {
    const { as, mcp } = await servers();
    const p = await place();
    const one = await bridge(as, mcp, p, { args: ['--account', 'one'] });
    expect(text(await one.client.callTool({ name: 'echo', arguments: { text: '1' } }))).toBe('1');
    const two = await bridge(as, mcp, p, { args: ['--account', 'two'] });
    expect(text(await two.client.callTool({ name: 'echo', arguments: { text: '2' } }))).toBe('2');
    expect(two.browserLog()).toHaveLength(2);
    expect(as.stats()).toMatchObject({ authorizationRequests: 2, registrations: 2 });
  });
});

describe('several processes share one sign-in', () => {
  it.each([2, 5])(
    '%i bridges started at once open the browser once in all, and all work',
    async (count) => {
      const { as, mcp } = await servers();
      const p = await place();
      const started = await Promise.all(Array.from({ length: count }, () => bridge(as, mcp, p)));
      const results = await Promise.all(
        started.map((run, i) => run.client.callTool({ name: 'echo', arguments: { text: `p${i}` } })),
      );
      expect(results.map(text)).toEqual(started.map((_run, i) => `p${i}`));
      expect(started[0]?.browserLog()).toHaveLength(1);
      expect(as.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1 });
    },
    120_000,
  );
});

describe('a lock holder that dies during its sign-in', () => {
  it('another process takes over and completes the sign-in', async () => {
    const { as, mcp } = await servers();
    const p = await place();
    let holderPid: (() => number | null) | undefined;
    // The holder's browser never comes back: it holds the sign-in lock while it waits.
    const holder = bridge(as, mcp, p, {
      env: { TEST_BROWSER_MODE: 'hang', TEST_BROWSER_HANG_MS: '6000' },
      started: (pid) => (holderPid = pid),
    }).catch(() => undefined);
    await waitFor(() => readLines(p).length === 1);
    let atLock: () => void = () => undefined;
    const reachedLock = new Promise<void>((resolve) => (atLock = resolve));
    const waiter = bridge(as, mcp, p, {
      stderrLine: (line) => {
        if (line.includes('waits for the sign-in of another bridge process')) atLock();
      },
    });
    // The second process reaches the lock the holder holds, and opened no browser of its own.
    await reachedLock;
    expect(readLines(p)).toHaveLength(1);
    process.kill(holderPid?.() ?? 0, 'SIGKILL');
    const run = await waiter;
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'took over' } }))).toBe(
      'took over',
    );
    expect(readLines(p)).toEqual([
      { argc: 1, startUrl: true, mode: 'hang' },
      { argc: 1, startUrl: true, mode: 'follow' },
    ]);
    await holder;
  }, 60_000);
});

function readLines(p: Place) {
  return readBrowserLog(p.browserLog);
}
