/**
 * The lifecycle of the shared bridge (docs/shared.md#shared-lifecycle): the loss of a shared
 * upstream ends the requests of every session on it as the stdio bridge ends them, and the next
 * initialize starts it again; an upstream starts at the hello and stays its grace after its last
 * session; the upstream of a failed initialize stops at once unless another session initialized
 * on it; the shared process ends after its idle time; `shared status` and `shared stop`. Each
 * test has its own XDG_RUNTIME_DIR (sharedSupport.ts). Needs the build (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  GENERIC_BRIDGE,
  bridgeErrorResponse,
  exitWithin,
  handshakeWithin,
  initializeRequest,
  isRunning,
  pidsInFile,
  req,
  scripted,
} from '../helpers/bridgeProcess.js';
import { responseTo } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import {
  SHARED_STARTUP_MS,
  countedFixture,
  logCount,
  pidFilesOfFile,
  sharedPlace,
  startShim,
} from './sharedSupport.js';
import type { SharedPlace } from './sharedSupport.js';

const STARTUP_MS = SHARED_STARTUP_MS;

const pidFile = pidFilesOfFile('bridge-shared-life-');

vi.setConfig({ maxConcurrency: 1 });

/** The pids of the scripted upstreams started so far (their line `scripted-upstream: pid N`). */
const scriptedPids = (place: SharedPlace): number[] =>
  place.log().flatMap((line) => {
    const match = /^scripted-upstream: pid (\d+)$/.exec(line);
    return match === null ? [] : [Number(match[1])];
  });

/** `mcp-bridge shared <command>` in the test's runtime directory. */
const sharedCommand = (place: SharedPlace, command: string) =>
  spawnSync(process.execPath, [GENERIC_BRIDGE, 'shared', command], {
    env: place.env,
    encoding: 'utf8',
    timeout: STARTUP_MS,
  });

describe('the lifecycle of the shared bridge', () => {
  it('ends the calls of every session when the upstream stops, and the next initialize starts it again', async (context) => {
    const place = sharedPlace(context);
    const file = pidFile();
    const a = startShim(context, place, { upstream: countedFixture(file) });
    const b = startShim(context, place, { upstream: countedFixture(file) });
    await handshakeWithin(a, STARTUP_MS);
    await handshakeWithin(b, STARTUP_MS);
    a.send(req('slow', 'tools/call', { name: 'slow', arguments: { ms: 60_000 } }));
    await waitFor(() => logCount(place, 'slow: started') === 1, { what: 'the call upstream' });
    b.send(req(0, 'tools/call', { name: 'crash', arguments: {} }));
    expect(await a.nextFrame(responseTo('slow'), STARTUP_MS)).toEqual(
      bridgeErrorResponse('slow', 'upstream_exited'),
    );
    expect(await b.nextFrame(responseTo(0), STARTUP_MS)).toEqual(bridgeErrorResponse(0, 'upstream_exited'));
    for (const shim of [a, b]) {
      expect(await exitWithin(shim, STARTUP_MS)).toMatchObject({ code: 1, signal: null });
      expect(shim.stderr).toContain(
        'mcp-bridge: bridge: error: the upstream server exited with code 3 (upstream_exited)',
      );
    }
    const next = startShim(context, place, { upstream: countedFixture(file) });
    await handshakeWithin(next, STARTUP_MS);
    expect(pidsInFile(file)).toHaveLength(2);
  });

  it('stops an upstream after the grace of its last session, and keeps it within the grace', async (context) => {
    const place = sharedPlace(context);
    const file = pidFile();
    const first = startShim(context, place, {
      upstream: countedFixture(file),
      bridgeArgs: ['--shared-grace', '0'],
    });
    await handshakeWithin(first, STARTUP_MS);
    first.closeStdin();
    expect(await exitWithin(first, STARTUP_MS)).toMatchObject({ code: 0, signal: null });
    const [stopped] = pidsInFile(file);
    await waitFor(() => !isRunning(stopped!), { what: 'the upstream stopped after a grace of 0 s' });
    // The default grace (30 s) keeps the next upstream for the shim after it.
    const second = startShim(context, place, { upstream: countedFixture(file) });
    await handshakeWithin(second, STARTUP_MS);
    second.closeStdin();
    expect(await exitWithin(second, STARTUP_MS)).toMatchObject({ code: 0, signal: null });
    const third = startShim(context, place, { upstream: countedFixture(file) });
    await handshakeWithin(third, STARTUP_MS);
    expect(pidsInFile(file)).toHaveLength(2);
  });

  it('starts the upstream at the hello, keeps it the grace after a shim that never initialized, and the next initialize adopts it', async (context) => {
    const place = sharedPlace(context);
    const file = pidFile();
    const first = startShim(context, place, { upstream: countedFixture(file) });
    await waitFor(() => pidsInFile(file).length === 1, {
      timeoutMs: STARTUP_MS,
      what: 'the start of the upstream at the hello',
    });
    const [started] = pidsInFile(file);
    first.closeStdin();
    expect(await exitWithin(first, STARTUP_MS)).toMatchObject({ code: 0, signal: null });
    // The default grace (30 s): the upstream that no initialize adopted stays for the next shim.
    expect(isRunning(started!)).toBe(true);
    const next = startShim(context, place, { upstream: countedFixture(file) });
    expect(await handshakeWithin(next, STARTUP_MS)).toHaveProperty('result');
    expect(pidsInFile(file)).toEqual([started]);
  });

  it('stops the upstream of a failed initialize at once, within the grace, when no other session initialized on it', async (context) => {
    const place = sharedPlace(context);
    const failing = startShim(context, place, { upstream: scripted('legacy-only') });
    // Joined, never initialized: it does not keep the upstream.
    const idle = startShim(context, place, { upstream: scripted('legacy-only') });
    failing.send(initializeRequest(1));
    expect(await failing.nextFrame(responseTo(1), STARTUP_MS)).toEqual(
      bridgeErrorResponse(1, 'discover_failed', 'Method not found', -32601),
    );
    const [first] = scriptedPids(place);
    await waitFor(() => !isRunning(first!), { what: 'the stop of the failed upstream' });
    expect([failing.child.exitCode, idle.child.exitCode]).toEqual([null, null]);
    // The next initialize of any session of the key starts a new one.
    idle.send(initializeRequest(1));
    expect(await idle.nextFrame(responseTo(1), STARTUP_MS)).toEqual(
      bridgeErrorResponse(1, 'discover_failed', 'Method not found', -32601),
    );
    expect(scriptedPids(place)).toHaveLength(2);
  });

  it('keeps a warm upstream whose discover fails for a joining session: the others go on, and the retry asks it again', async (context) => {
    const place = sharedPlace(context);
    const warm = startShim(context, place, { upstream: scripted('discover-once') });
    await handshakeWithin(warm, STARTUP_MS);
    const joining = startShim(context, place, { upstream: scripted('discover-once') });
    for (const id of [1, 2]) {
      joining.send(initializeRequest(id));
      expect(await joining.nextFrame(responseTo(id), STARTUP_MS)).toEqual(
        bridgeErrorResponse(id, 'discover_failed', 'Method not found', -32601),
      );
    }
    // One start: a new upstream would have answered the retry's discover.
    expect(scriptedPids(place)).toHaveLength(1);
    warm.send(req('call', 'tools/call', { name: 'echo', arguments: { text: 'still served' } }));
    expect(await warm.nextFrame(responseTo('call'), STARTUP_MS)).toMatchObject({
      result: { content: [{ type: 'text', text: 'still served' }] },
    });
  });

  it('ends the shared process after its idle time without a session, and removes its socket and secret', async (context) => {
    const place = sharedPlace(context);
    const shim = startShim(context, place, { bridgeArgs: ['--shared-idle', '1'] });
    await handshakeWithin(shim, STARTUP_MS);
    const daemon = await place.daemonPid();
    shim.closeStdin();
    expect(await exitWithin(shim, STARTUP_MS)).toMatchObject({ code: 0, signal: null });
    await waitFor(() => !isRunning(daemon), { what: 'the shared process ending when idle' });
    expect(existsSync(join(place.dir, 'shared.sock'))).toBe(false);
    expect(existsSync(join(place.dir, 'shared.secret'))).toBe(false);
  });

  it('shows its upstreams without secrets in shared status, and ends with shared stop', async (context) => {
    const place = sharedPlace(context);
    const shim = startShim(context, place, { env: { API_TOKEN: 'very-secret-value' } });
    await handshakeWithin(shim, STARTUP_MS);
    const status = sharedCommand(place, 'status');
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(
      /^shared bridge: pid \d+, up \d+ s, 1 sessions, rss \d+ MiB\n {2}[0-9a-f]{12} node: 1 sessions, up \d+ s\n$/,
    );
    expect(status.stdout).not.toContain('very-secret-value');
    const daemon = await place.daemonPid();
    const stop = sharedCommand(place, 'stop');
    expect([stop.status, stop.stdout]).toEqual([0, 'the shared bridge stops\n']);
    await waitFor(() => !isRunning(daemon), { what: 'the shared process ending on shared stop' });
    expect(sharedCommand(place, 'status')).toMatchObject({
      status: 1,
      stdout: '',
      stderr: 'mcp-bridge: bridge: error: no shared bridge runs\n',
    });
  });
});
