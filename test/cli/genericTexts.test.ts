/**
 * The generic executable `mcp-bridge` says nothing of VS Code: its help, its diagnostics, logout,
 * status, a token store that does not open, a sign-in that times out and the sandbox, each run
 * through the BUILT dist/bin/mcp-bridge.js, with stdout and stderr collected, hold no `vscode`
 * (README "Profiles"). Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { killAllPeers, responseTo, spawnPeer } from '../helpers/rawPeer.js';
import type { Frame } from '../helpers/rawPeer.js';
import { bridgeEnv } from '../process/httpSupport.js';
import { freePort, makeWorld, startServers } from '../oauth/e2eSupport.js';
import type { E2eWorld } from '../oauth/e2eSupport.js';

let world: E2eWorld;
let state: string;
const closers: Array<() => Promise<void>> = [];

beforeAll(() => {
  world = makeWorld();
  state = mkdtempSync(join(tmpdir(), 'mcp-bridge-texts-'));
});
afterEach(async () => {
  await killAllPeers();
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => {
  world.remove();
  rmSync(state, { recursive: true, force: true });
});

/** The environment of a run: an empty state directory, no keychain (no session bus), no key. */
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const base = bridgeEnv({ XDG_STATE_HOME: state, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' });
  delete base['MCP_BRIDGE_TOKEN_KEY'];
  delete base['SANDBOX_RUNTIME'];
  return { ...base, ...extra };
};

/** Runs `mcp-bridge args` to its end with stdin closed: the exit code and all it wrote. */
function run(
  args: readonly string[],
  extra: Record<string, string> = {},
): { status: number | null; text: string } {
  const result = spawnSync(process.execPath, [GENERIC_BRIDGE, ...args], {
    encoding: 'utf8',
    env: env(extra),
    input: '',
    timeout: 60_000,
  });
  return { status: result.status, text: `${result.stdout}\n${result.stderr}` };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'texts-client', version: '1.0.0' },
  },
};

/** Serves `url` to one initialize; resolves with its error and all the bridge wrote. */
async function initializeError(
  args: readonly string[],
  extra: Record<string, string>,
): Promise<{ error: Record<string, unknown>; text: string }> {
  const peer = spawnPeer(process.execPath, [GENERIC_BRIDGE, ...args], env(extra));
  peer.send(INITIALIZE);
  const response: Frame = await peer.nextFrame(responseTo(1), 60_000);
  peer.closeStdin();
  await peer.exit;
  return {
    error: (response['error'] ?? {}) as Record<string, unknown>,
    text: [...peer.lines, ...peer.stderr].join('\n'),
  };
}

describe('mcp-bridge names no VS Code', () => {
  it('in --help and in the diagnostic of an invalid command line', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.text).not.toMatch(/vscode/i);
    const usage = run(['--no-such-option']);
    expect(usage.status).toBe(2);
    expect(usage.text).toMatch(/^mcp-bridge: bridge: error: the option --no-such-option is not known$/m);
    expect(usage.text).not.toMatch(/vscode/i);
  });

  it('in status and logout, with nothing stored and with a token key file that is missing', () => {
    const url = 'https://mcp.example.test/mcp';
    const status = run(['status']);
    expect(status.status).toBe(1);
    expect(status.text).toContain('mcp-bridge: bridge: info: status found no stored sign-in');
    expect(status.text).not.toMatch(/vscode/i);
    const logout = run(['logout', url]);
    expect(logout.status).toBe(0);
    expect(logout.text).toContain('mcp-bridge: bridge: ');
    expect(logout.text).not.toMatch(/vscode/i);
    const badKey = run(['logout', '--token-key-file', join(state, 'no-such-key'), url]);
    expect(badKey.text).toContain('mcp-bridge: bridge: ');
    expect(badKey.text).not.toMatch(/vscode/i);
  });

  it('when the forced keychain store does not open (no keychain), and exits with 2', () => {
    const failed = run(['--token-store', 'keychain', 'https://mcp.example.test/mcp']);
    expect(failed.status).toBe(2);
    expect(failed.text).toContain('mcp-bridge: bridge: error: the token store did not open: ');
    expect(failed.text).not.toMatch(/vscode/i);
  });

  it('in the error of a sign-in that times out, which names its own logout', async () => {
    const { mcp } = await startServers(world, (close) => closers.push(close));
    const port = await freePort();
    const { error, text } = await initializeError(
      [
        '--ca-file',
        world.caFile,
        '--redirect-port',
        String(port),
        '--token-store',
        'memory',
        '--sign-in-timeout',
        '1',
        mcp.url,
      ],
      { BROWSER: world.browser, TEST_BROWSER_MODE: 'hang', TEST_BROWSER_HANG_MS: '5000' },
    );
    expect(error['data']).toMatchObject({ cause: 'sign_in_timeout' });
    expect(error['message']).toContain('run "mcp-bridge logout <url>" and sign in again');
    expect(text).not.toMatch(/vscode/i);
  });

  it('in the error and the log line of a sign-in in a sandbox', async () => {
    const { mcp } = await startServers(world, (close) => closers.push(close));
    const { error, text } = await initializeError(
      ['--ca-file', world.caFile, '--token-store', 'memory', mcp.url],
      { SANDBOX_RUNTIME: '1' },
    );
    expect(error).toMatchObject({
      code: -32603,
      message:
        'The upstream server needs a sign-in, but the bridge runs in a sandbox (SANDBOX_RUNTIME=1) that ' +
        'allows no sign-in. Sign in once outside the sandbox, or turn the sandbox off for this server.',
      data: { cause: 'sandbox' },
    });
    expect(text).toContain('mcp-bridge: oauth: error: The bridge runs in a sandbox that allows no sign-in.');
    expect(text).not.toMatch(/vscode/i);
  });
});
