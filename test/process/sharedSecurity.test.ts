/**
 * The shared bridge against another local user (docs/shared.md#where-the-socket-lives, SECURITY.md):
 * a directory or socket path planted by another user is refused and left as it is, and a process
 * of another user (uid 65534) cannot connect to the shared process's socket. The tests chown to
 * 65534 and run a process as 65534, so they need root and `setpriv`; elsewhere they skip with
 * that reason. Needs the build (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, lstatSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { TestContext } from 'vitest';
import { exitWithin, handshakeWithin } from '../helpers/bridgeProcess.js';
import { killAllPeers } from '../helpers/rawPeer.js';
import { sharedPlace, startShim } from './sharedSupport.js';

const STARTUP_MS = 60_000;
const OTHER_UID = 65534;
const IS_ROOT = process.getuid?.() === 0;
const HAS_SETPRIV = process.platform === 'linux' && spawnSync('setpriv', ['--version']).status === 0;

vi.setConfig({ maxConcurrency: 1 });
afterAll(killAllPeers);

function needsRoot(context: TestContext): void {
  context.skip(!IS_ROOT, 'this test chowns files to uid 65534: it needs root');
}

describe('the shared bridge and another local user', () => {
  it('refuses a directory that another user planted, and leaves it', async (context) => {
    needsRoot(context);
    const place = sharedPlace(context);
    mkdirSync(place.dir, { mode: 0o700 });
    chownSync(place.dir, OTHER_UID, OTHER_UID);
    const shim = startShim(context, place);
    expect(await exitWithin(shim, STARTUP_MS)).toMatchObject({ code: 1, signal: null });
    expect(shim.stderr).toEqual([
      `mcp-bridge: bridge: error: ${place.dir} is owned by uid ${OTHER_UID}, not 0 (shared_dir_unsafe)`,
    ]);
    expect(shim.lines).toEqual([]);
    expect(lstatSync(place.dir).uid).toBe(OTHER_UID);
    // Nothing was started: no shared process wrote its log there.
    expect(existsSync(join(place.dir, 'daemon.log'))).toBe(false);
  });

  it('refuses a socket path that another user planted, and leaves it', async (context) => {
    needsRoot(context);
    const place = sharedPlace(context);
    mkdirSync(place.dir, { mode: 0o700 });
    const socketPath = join(place.dir, 'shared.sock');
    const planted = createServer();
    await new Promise<void>((resolve) => planted.listen(socketPath, resolve));
    context.onTestFinished(() => void planted.close());
    chownSync(socketPath, OTHER_UID, OTHER_UID);
    const shim = startShim(context, place);
    expect(await exitWithin(shim, STARTUP_MS)).toMatchObject({ code: 1, signal: null });
    expect(shim.stderr).toEqual([
      `mcp-bridge: bridge: error: ${socketPath} is owned by uid ${OTHER_UID}, not 0 (shared_socket_unsafe)`,
    ]);
    const after = lstatSync(socketPath);
    expect([after.isSocket(), after.uid]).toEqual([true, OTHER_UID]);
  });

  it('does not let a process of uid 65534 connect to the socket', async (context) => {
    needsRoot(context);
    context.skip(!HAS_SETPRIV, 'this test runs a process as uid 65534 with setpriv (Linux)');
    const place = sharedPlace(context);
    const shim = startShim(context, place);
    await handshakeWithin(shim, STARTUP_MS);
    const socketPath = join(place.dir, 'shared.sock');
    const probe = [
      "const socket = require('node:net').connect(process.argv[1]);",
      "socket.on('connect', () => { console.log('connected'); process.exit(0); });",
      "socket.on('error', (error) => { console.log(error.code); process.exit(0); });",
    ].join('\n');
    const other = spawnSync(
      'setpriv',
      [
        `--reuid=${OTHER_UID}`,
        `--regid=${OTHER_UID}`,
        '--clear-groups',
        process.execPath,
        '-e',
        probe,
        socketPath,
      ],
      { encoding: 'utf8', timeout: STARTUP_MS },
    );
    expect(other.stdout.trim()).toBe('EACCES');
    // The same probe as this user connects: the refusal above is the user's, not a dead socket.
    const own = spawnSync(process.execPath, ['-e', probe, socketPath], {
      encoding: 'utf8',
      timeout: STARTUP_MS,
    });
    expect(own.stdout.trim()).toBe('connected');
  });
});
