/**
 * The URL form with a sign-in under `--shared` (docs/shared.md#shared-signin): two SDK 1.x clients
 * start the BUILT `mcp-bridge-vscode --shared <url>` with the same entry, in front of the protected
 * MCP fixture and oidc-provider (e2eSupport.ts), in a runtime directory of the test's own
 * (test/process/sharedSupport.ts). Both shims join one shared process: one sign-in for both, and a
 * question of a sign-in goes to the session whose request needs it. Needs `npm run build`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import type { AuthServer, AuthServerOptions } from '../fixtures/oauth/authServer.js';
import type { ProtectedMcp, ProtectedMcpOptions } from '../fixtures/oauth/protectedMcp.js';
import { sharedPlace } from '../process/sharedSupport.js';
import type { SharedPlace } from '../process/sharedSupport.js';
import { runPlace, startBridge, startServers } from './e2eSupport.js';
import type { BridgeRun, RunPlace } from './e2eSupport.js';
import { e2eSuite } from './e2eSuite.js';

const suite = e2eSuite({ requireMarkers: true });

const servers = (
  asOptions: Partial<AuthServerOptions> = {},
  mcpOptions: Partial<ProtectedMcpOptions> = {},
): ReturnType<typeof startServers> =>
  startServers(suite.world, (close) => suite.closers.push(close), asOptions, mcpOptions);

const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

/** The lock line of docs/sign-in.md#sign-in-lock: a second sign-in process waited for the first. */
const LOCK_WAIT = 'waits for the sign-in of another bridge process';

/** Every file below `dir`, relative to it. */
function filesBelow(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
  } catch {
    return [];
  }
}

/**
 * Two shims of one entry (the same arguments and environment: one sharing key), each through its
 * own client; both initialized. `together`: started at once, else the first before the second.
 */
async function twoShims(
  place: SharedPlace,
  as: AuthServer,
  mcp: ProtectedMcp,
  run: RunPlace,
  together = true,
): Promise<[BridgeRun, BridgeRun]> {
  const options = {
    url: mcp.url,
    redirectPort: run.port,
    store: 'file' as const,
    stateDir: run.stateDir,
    browserLog: run.browserLog,
    args: ['--shared'],
    env: { XDG_RUNTIME_DIR: place.runtime },
  };
  if (together) {
    const [one, two] = await Promise.all([
      startBridge(suite.world, options),
      startBridge(suite.world, options),
    ]);
    suite.runs.push({ run: one, as }, { run: two, as });
    return [one, two];
  }
  const one = await startBridge(suite.world, options);
  suite.runs.push({ run: one, as });
  const two = await startBridge(suite.world, options);
  suite.runs.push({ run: two, as });
  return [one, two];
}

describe('mcp-bridge-vscode --shared <url> with a server that needs a sign-in', () => {
  it('two shims that start at once sign in once, under one lock, with the tokens in the user state directory', async (context: TestContext) => {
    const place = sharedPlace(context);
    const { as, mcp } = await servers();
    const run = await runPlace(suite.world, 'shared-');
    const [one, two] = await twoShims(place, as, mcp, run);
    const echoed = await Promise.all(
      [one, two].map((shim, index) =>
        shim.client.callTool({ name: 'echo', arguments: { text: `shim ${index}` } }),
      ),
    );
    expect(echoed.map(text)).toEqual(['shim 0', 'shim 1']);
    // One sign-in in all, counted at the authorization server, and one browser.
    expect(as.stats()).toMatchObject({ registrations: 1, authorizationRequests: 1, codeGrants: 1 });
    expect(one.browserLog()).toEqual([{ argc: 1, startUrl: true, mode: 'follow' }]);
    // One process signed in: no process waited at the lock of another.
    expect([...one.stderr, ...two.stderr, ...place.log()].filter((line) => line.includes(LOCK_WAIT))).toEqual(
      [],
    );
    // The sign-in line goes to the stderr of the sessions on the key, as the stdio bridge writes
    // it to its own (docs/shared.md#shared-signin): once to each, never to the shared log.
    const signInLines = [one, two].map(
      (shim) =>
        shim.stderr.filter((line) => line.startsWith('mcp-bridge-vscode: sign in at https://127.0.0.1:'))
          .length,
    );
    expect(signInLines.filter((count) => count > 1)).toEqual([]);
    expect(signInLines).toContain(1);
    expect(place.log().filter((line) => line.includes('sign in at'))).toEqual([]);
    // The token file is in the user's state directory (XDG_STATE_HOME of the entry), the lock
    // file is gone, and the shared process's own directory holds its log, socket and secret only
    // (docs/shared.md#shared-secret): no token.
    const stored = filesBelow(run.stateDir);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.filter((file) => file.endsWith('.lock'))).toEqual([]);
    expect(filesBelow(place.dir).sort()).toEqual(['daemon.log', 'shared.secret']);
    expect(one.elicited).toEqual([]);
    expect(two.elicited).toEqual([]);
  });

  it('a step-up asks only the session whose call needs it, and the other session calls on', async (context: TestContext) => {
    const place = sharedPlace(context);
    const { as, mcp } = await servers({}, { stepUpTools: [{ name: 'add', scope: 'mcp:write' }] });
    const run = await runPlace(suite.world, 'shared-');
    // The session that asks is the first: the one a question without its request's session
    // would go to is the second, bound last (src/bridge/consent.ts).
    const [two, one] = await twoShims(place, as, mcp, run, false);
    expect(text(await two.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(two.elicited).toHaveLength(1);
    expect(two.elicited[0]?.message).toBe(
      'The upstream server needs a new sign-in. Open the URL and sign in at the authorization server.',
    );
    expect(one.elicited).toEqual([]);
    expect(text(await one.client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe(
      'still here',
    );
    expect(as.stats()).toMatchObject({ authorizationRequests: 2, codeGrants: 2 });
  });
});
