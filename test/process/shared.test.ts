/**
 * The shared bridge end to end (docs/shared.md): shims of the built `mcp-bridge --shared` join one
 * shared process per runtime directory, one upstream per sharing key, each client with only its
 * own answers; the loss of the shared process is reported as the stdio bridge reports the loss of
 * its upstream. Each test has its own XDG_RUNTIME_DIR and its shared process is killed after it
 * (sharedSupport.ts). Needs the build (`npm run build`).
 */
import { describe, expect, it, vi } from 'vitest';
import { NO_POSIX_SIGNALS } from '../helpers/platform.js';
import {
  bridgeErrorResponse,
  exitWithin,
  handshakeWithin,
  pidsInFile,
  req,
} from '../helpers/bridgeProcess.js';
import { responseTo } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import {
  SHARED_STARTUP_MS,
  countedFixture,
  logCount,
  pidFilesOfFile,
  sharedPlace,
  startShim,
} from './sharedSupport.js';

const STARTUP_MS = SHARED_STARTUP_MS;

const pidFile = pidFilesOfFile('bridge-shared-pids-');

vi.setConfig({ maxConcurrency: 1 });

const textOf = (frame: Record<string, unknown>): unknown =>
  (frame.result as { content?: { text?: unknown }[] } | undefined)?.content?.[0]?.text;

async function callAdd(peer: RawPeer, id: string, a: number, b: number): Promise<Record<string, unknown>> {
  peer.send(req(id, 'tools/call', { name: 'add', arguments: { a, b } }));
  return peer.nextFrame(responseTo(id), STARTUP_MS);
}

describe('the shared bridge', () => {
  it('serves 20 shims started at once from one upstream, each with only its own answers', async (context) => {
    const place = sharedPlace(context);
    const file = pidFile();
    const shims = Array.from({ length: 20 }, () =>
      startShim(context, place, { upstream: countedFixture(file), bridgeArgs: ['--log-level', 'debug'] }),
    );
    await Promise.all(shims.map((shim) => handshakeWithin(shim, STARTUP_MS)));
    // The same id on every shim: an answer that reached the wrong client would carry the wrong sum.
    const answers = await Promise.all(shims.map((shim, index) => callAdd(shim, 'call', index, 1000)));
    expect(answers.map(textOf)).toEqual(Array.from({ length: 20 }, (_, index) => String(index + 1000)));
    // Each client got its initialize result and its one answer, nothing of another session.
    for (const shim of shims) expect(shim.lines).toHaveLength(2);
    expect(pidsInFile(file)).toHaveLength(1);
    for (const shim of shims) {
      expect(shim.stderr.filter((line) => line.includes('joined shared bridge'))).toEqual([
        expect.stringMatching(/^mcp-bridge: bridge: debug: joined shared bridge [0-9a-f]{12} \(node\)$/),
      ]);
    }
  });

  it('cancels upstream only the request of a shim killed with SIGKILL', async (context) => {
    context.skip(NO_POSIX_SIGNALS, 'this test sends POSIX signals (test/helpers/platform.ts)');
    const place = sharedPlace(context);
    const a = startShim(context, place);
    const b = startShim(context, place);
    await handshakeWithin(a, STARTUP_MS);
    await handshakeWithin(b, STARTUP_MS);
    a.send(req('slow', 'tools/call', { name: 'slow', arguments: { ms: 60_000 } }));
    b.send(req('slow', 'tools/call', { name: 'slow', arguments: { ms: 60_000 } }));
    await waitFor(() => logCount(place, 'slow: started') === 2, { what: 'both calls upstream' });
    a.kill();
    await waitFor(() => logCount(place, 'slow: canceled') === 1, { what: 'the cancel of the killed shim' });
    // A later call of the other shim passes through the same upstream, after any cancel sent before it.
    expect(textOf(await callAdd(b, 'after', 2, 3))).toBe('5');
    expect(logCount(place, 'slow: canceled')).toBe(1);
    // The other shim's call still runs: its own cancel reaches the upstream now.
    b.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow' } });
    await waitFor(() => logCount(place, 'slow: canceled') === 2, { what: 'the cancel of the other shim' });
  });

  it('gives entries that differ in a token two upstreams, and those that differ in VSCODE_PID one', async (context) => {
    const place = sharedPlace(context);
    const tokens = pidFile();
    const windows = pidFile();
    const shims = [
      startShim(context, place, { upstream: countedFixture(tokens), env: { API_TOKEN: 'first' } }),
      startShim(context, place, { upstream: countedFixture(tokens), env: { API_TOKEN: 'second' } }),
      startShim(context, place, { upstream: countedFixture(windows), env: { VSCODE_PID: '101' } }),
      startShim(context, place, { upstream: countedFixture(windows), env: { VSCODE_PID: '202' } }),
    ];
    for (const shim of shims) await handshakeWithin(shim, STARTUP_MS);
    expect(pidsInFile(tokens)).toHaveLength(2);
    expect(pidsInFile(windows)).toHaveLength(1);
  });

  it('reports the loss of the shared process to each client within 2 s, and the next start works', async (context) => {
    context.skip(NO_POSIX_SIGNALS, 'this test sends POSIX signals (test/helpers/platform.ts)');
    const place = sharedPlace(context);
    const shim = startShim(context, place);
    await handshakeWithin(shim, STARTUP_MS);
    shim.send(req('slow', 'tools/call', { name: 'slow', arguments: { ms: 60_000 } }));
    await waitFor(() => logCount(place, 'slow: started') === 1, { what: 'the call upstream' });
    process.kill(await place.daemonPid(), 'SIGKILL');
    const exit = await exitWithin(shim, 2_000);
    expect(exit).toMatchObject({ code: 1, signal: null });
    expect(shim.lines.map((line) => JSON.parse(line) as unknown).at(-1)).toEqual(
      bridgeErrorResponse('slow', 'upstream_exited'),
    );
    expect(shim.stderr).toContain(
      'mcp-bridge: bridge: error: the shared bridge process stopped (upstream_exited)',
    );
    // The socket of the killed process is left behind: the next shim's shared process replaces it.
    const next = startShim(context, place);
    await handshakeWithin(next, STARTUP_MS);
    expect(textOf(await callAdd(next, 'after', 2, 3))).toBe('5');
  });
});
