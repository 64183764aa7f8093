/**
 * The generic executable `mcp-bridge` for clients that cannot show a URL (Claude Desktop, Codex,
 * Cursor and the like; README.md "Sign-in and tokens"): the real SDK 1.x Client, declaring no
 * elicitation at all, drives the BUILT `dist/bin/mcp-bridge.js` in front of the protected MCP
 * fixture and oidc-provider (e2eSupport.ts). A sign-in needed after `notifications/initialized`
 * opens the browser with a one-time start URL, as during initialize, and the call completes.
 * Every test ends with the secret scan of the bridge's stderr and stdout. Needs `npm run build`.
 */
import { describe, expect, it } from 'vitest';
import { GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import type { AuthServer } from '../fixtures/oauth/authServer.js';
import type { ProtectedMcp, ProtectedMcpOptions } from '../fixtures/oauth/protectedMcp.js';
import { runPlace, startBridge, startServers } from './e2eSupport.js';
import { e2eSuite } from './e2eSuite.js';
import type { BridgeRun } from './e2eSupport.js';

const suite = e2eSuite({ requireMarkers: true });
const { closers, runs } = suite;

async function generic(mcpOptions: Partial<ProtectedMcpOptions> = {}): Promise<{
  as: AuthServer;
  mcp: ProtectedMcp;
  run: BridgeRun;
}> {
  const { as, mcp } = await startServers(suite.world, (close) => closers.push(close), {}, mcpOptions);
  const place = await runPlace(suite.world, 'generic-');
  const run = await startBridge(suite.world, {
    executable: GENERIC_BRIDGE,
    url: mcp.url,
    redirectPort: place.port,
    store: 'memory',
    stateDir: place.stateDir,
    browserLog: place.browserLog,
    urlElicitation: 'none',
  });
  runs.push({ run, as });
  return { as, mcp, run };
}

const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

const signInLines = (run: BridgeRun): string[] =>
  run.stderr.filter((line) => line.startsWith('mcp-bridge: sign in at https://127.0.0.1:'));

describe('mcp-bridge with an SDK 1.x client that declares no elicitation', () => {
  it('a 403 insufficient_scope after initialized opens the browser again, and the call completes', async () => {
    const { as, mcp, run } = await generic({ stepUpTools: [{ name: 'add', scope: 'mcp:write' }] });
    expect(run.stderr).toContain(
      'mcp-bridge: bridge: info: the client did not declare URL elicitation: a later sign-in opens the browser',
    );
    expect(run.browserLog()).toEqual([{ argc: 1, startUrl: true, mode: 'follow' }]);
    expect(text(await run.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    // The second start of the browser, with a new one-time start URL; no question to the client.
    expect(run.browserLog()).toEqual([
      { argc: 1, startUrl: true, mode: 'follow' },
      { argc: 1, startUrl: true, mode: 'follow' },
    ]);
    expect(run.stdout.filter((line) => line.includes('"elicitation/create"'))).toEqual([]);
    expect(as.authorizations().map((a) => a.scope?.split(' ').includes('mcp:write'))).toEqual([false, true]);
    expect(
      mcp
        .requests()
        .filter((r) => r.rpcMethod === 'tools/call')
        .map((r) => r.status),
    ).toEqual([403, 200]);
    expect(signInLines(run)).toHaveLength(2);
  });

  it('a sign-in needed after initialized (tokens forgotten by the server) opens the browser, and the call completes', async () => {
    const { as, run } = await generic();
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'one' } }))).toBe('one');
    as.revokeAccessTokens();
    as.revokeRefreshTokens();
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'two' } }))).toBe('two');
    expect(run.browserLog()).toHaveLength(2);
    expect(as.stats()).toMatchObject({ authorizationRequests: 2, codeGrants: 2 });
  });
});
