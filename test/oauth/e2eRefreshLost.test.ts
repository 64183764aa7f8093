/**
 * A refresh token is sent at most once, end to end (SECURITY.md, sign-in requirement 4): the
 * built bridge with the encrypted file store sends a refresh, oidc-provider grants it (the
 * rotating refresh token is spent) and holds its answer back, and the client ends stdin. The
 * answer never reaches the bridge, which exits and leaves no lock file; the next start does not
 * send the spent refresh token again (oidc-provider would see a reuse): it signs in anew in the
 * browser. Needs the build (`npm run build`).
 */
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { isRunning } from '../helpers/bridgeProcess.js';
import type { AuthServer } from '../fixtures/oauth/authServer.js';
import type { ProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import { runPlace, startServers } from './e2eSupport.js';
import { e2eSuite, startFileStoreBridge } from './e2eSuite.js';
import type { BridgeRun, RunOptions, RunPlace } from './e2eSupport.js';

const suite = e2eSuite();
const { closers } = suite;

const bridge = (as: AuthServer, mcp: ProtectedMcp, p: RunPlace, options: Partial<RunOptions> = {}) =>
  startFileStoreBridge(suite, as, mcp, p, options);

const echo = async (run: BridgeRun, value: string): Promise<string | undefined> =>
  (
    (await run.client.callTool({ name: 'echo', arguments: { text: value } })) as {
      content?: Array<{ text?: string }>;
    }
  ).content?.[0]?.text;

const lockFiles = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true })).filter((name) => name.endsWith('.lock'));

describe('a refresh whose answer never came (the end of stdin during the refresh)', () => {
  it('the bridge exits without its lock file, and the next start signs in anew instead of sending the spent refresh token', async () => {
    const { as, mcp } = await startServers(suite.world, (close) => void closers.push(close));
    const p = await runPlace(suite.world, 'refresh-lost-');
    let pid: () => number | null = () => null;
    const first = await bridge(as, mcp, p, { started: (get) => (pid = get) });
    expect(await echo(first, 'a')).toBe('a');
    as.revokeAccessTokens(); // the next call gets 401 and the bridge refreshes
    const hold = as.holdRefreshAnswer();
    const call = echo(first, 'b').catch(() => 'no answer');
    await hold.reached; // the server spent the refresh token; its answer waits
    const firstPid = pid();
    expect(firstPid).not.toBeNull();
    await first.close(); // stdin ends
    await waitFor(() => !isRunning(firstPid ?? 0), { timeoutMs: 15_000, what: 'the first bridge exits' });
    expect(await call).toBe('no answer');
    expect(await lockFiles(p.stateDir)).toEqual([]);
    hold.release(); // the answer goes out to a bridge that is gone

    const second = await bridge(as, mcp, p);
    expect(await echo(second, 'c')).toBe('c');
    expect(as.tokenRequests().map((t) => [t.grantType, t.status])).toEqual([
      ['authorization_code', 200],
      ['refresh_token', 200],
      ['authorization_code', 200],
    ]);
    expect(second.browserLog()).toHaveLength(2);
    expect(second.stderr).toContain(
      'mcp-bridge-vscode: oauth: warning: a refresh of the stored sign-in got no answer (a bridge stopped during it): its refresh token is not sent again, a new sign-in follows',
    );
  }, 60_000);
});
