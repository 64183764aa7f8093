/**
 * An `initialize` cancelled right after it started the upstream child (src/edges/childProcess.ts):
 * whether the cancellation comes before the child's spawn event or after it, the child is
 * stopped while the bridge runs on, and the bridge's own stop knows it (process table checked).
 * Needs the build (`npm run build`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import type { TestContext } from 'vitest';
import { NO_POSIX_SIGNALS, NO_PROC } from '../helpers/platform.js';
import {
  bridgeErrorResponse,
  initializeRequest,
  isRunning,
  pidsInFile,
  note,
  req,
  startBridge,
} from '../helpers/bridgeProcess.js';
import { killAllPeers, responseTo } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';

/** How long a start may take on a loaded machine. */
const STARTUP_MS = 30_000;
/** The stop of a child: its stdin ends, SIGTERM to its group after 1 s (README "Command line"). */
const STOP_MS = 5_000;

/**
 * An upstream that appends its pid to the file of its first argument. Its first start exits at
 * once with code 3 (so that the first `initialize` fails and the next one starts a new child);
 * later starts never answer and ignore the end of their stdin: only a signal stops them.
 */
const UPSTREAM_SOURCE = `
const fs = require('node:fs');
const file = process.argv[2];
const first = !fs.existsSync(file);
fs.appendFileSync(file, process.pid + '\\n');
if (first) process.exit(3);
process.stdin.resume();
setInterval(() => undefined, 1000);
`;

let dir: string;
let script: string;
let files = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cancelled-spawn-'));
  script = join(dir, 'upstream.cjs');
  writeFileSync(script, UPSTREAM_SOURCE);
});
afterAll(async () => {
  await killAllPeers();
  rmSync(dir, { recursive: true, force: true });
});

const pidsIn = pidsInFile;

const cancel = (id: number): object => note('notifications/cancelled', { requestId: id, reason: 'the user' });

/** A bridge whose first `initialize` failed (the child it started first exited with code 3). */
async function afterFailedInitialize(context: TestContext): Promise<{ bridge: RawPeer; file: string }> {
  context.skip(NO_PROC || NO_POSIX_SIGNALS, 'this test reads /proc and relies on POSIX signals');
  const file = join(dir, `pids-${++files}`);
  const bridge = startBridge({ upstream: [process.execPath, script, file] });
  context.onTestFinished(() => {
    bridge.kill();
    for (const pid of pidsIn(file)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  });
  bridge.send(initializeRequest(1));
  expect(await bridge.nextFrame(responseTo(1), STARTUP_MS)).toEqual(
    bridgeErrorResponse(1, 'closed', 'server/discover'),
  );
  return { bridge, file };
}

/** The bridge still answers, has sent nothing for `id`, and exits with 0 at the end of stdin. */
async function expectBridgeGoesOn(bridge: RawPeer, id: number): Promise<void> {
  bridge.send(req('ping', 'ping'));
  expect(await bridge.nextFrame(responseTo('ping'), STARTUP_MS)).toEqual({
    jsonrpc: '2.0',
    id: 'ping',
    result: {},
  });
  expect(bridge.lines.filter((line) => line.includes(`"id":${id},`))).toEqual([]);
  bridge.closeStdin();
  expect(await bridge.exit).toEqual({ code: 0, signal: null });
}

describe.concurrent('an initialize cancelled right after it started the child', () => {
  it('before the spawn event (in the same write): the child is stopped while the bridge runs on', async (context) => {
    const { bridge, file } = await afterFailedInitialize(context);
    // One write: the bridge starts the child and reads the cancellation in the same turn, before
    // Node reports the child's spawn.
    bridge.send(`${JSON.stringify(initializeRequest(2))}\n${JSON.stringify(cancel(2))}`);
    await waitFor(() => pidsIn(file).length === 2, {
      timeoutMs: STARTUP_MS,
      what: 'the start of the second child',
    });
    const child = pidsIn(file)[1]!;
    await waitFor(() => !isRunning(child), { timeoutMs: STOP_MS, what: 'the stop of the second child' });
    expect(isRunning(child)).toBe(false);
    await expectBridgeGoesOn(bridge, 2);
  });

  it('after the spawn event: the child is stopped while the bridge runs on', async (context) => {
    const { bridge, file } = await afterFailedInitialize(context);
    bridge.send(initializeRequest(2));
    await waitFor(() => pidsIn(file).length === 2, {
      timeoutMs: STARTUP_MS,
      what: 'the start of the second child',
    });
    bridge.send(cancel(2));
    const child = pidsIn(file)[1]!;
    await waitFor(() => !isRunning(child), { timeoutMs: STOP_MS, what: 'the stop of the second child' });
    expect(isRunning(child)).toBe(false);
    await expectBridgeGoesOn(bridge, 2);
  });

  it('before the spawn event, then SIGTERM at once: the child is gone with the bridge, exit 0', async (context) => {
    const { bridge, file } = await afterFailedInitialize(context);
    bridge.send(`${JSON.stringify(initializeRequest(2))}\n${JSON.stringify(cancel(2))}`);
    await waitFor(() => pidsIn(file).length === 2, {
      timeoutMs: STARTUP_MS,
      what: 'the start of the second child',
    });
    const child = pidsIn(file)[1]!;
    // The signal stop knows the child although no initialize got its transport.
    bridge.child.kill('SIGTERM');
    const exit = await bridge.exit;
    await waitFor(() => !isRunning(child), { timeoutMs: STOP_MS, what: 'the stop of the second child' });
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
