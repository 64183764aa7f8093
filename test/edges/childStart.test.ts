/**
 * The start of an upstream child before anything adopts it (src/edges/childStart.ts):
 * its spawn error and its exit are kept for a late adopter, the output of a child that exited
 * before adoption is kept rather than drained, and a child nobody adopts is stopped even when it
 * ignores the end of stdin and SIGTERM.
 */
import { spawn } from 'node:child_process';
import type * as ChildProcessModule from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { firstValueFrom, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { silentLogger } from '../../src/ports/logger.js';
import { spawnChildUpstream } from '../../src/edges/childProcess.js';
import { startUpstreamChild, stopUpstreamChild } from '../../src/edges/childStart.js';
import type { ChildExit, ChildStartOutcome } from '../../src/edges/childStart.js';
import { NO_POSIX_SIGNALS } from '../helpers/platform.js';
import { isRunning } from '../helpers/bridgeProcess.js';

// The spawn of src/edges/childStart.ts, recorded: a test waits for the 'close' of its child.
vi.mock('node:child_process', async (original) => {
  const actual = await original<typeof ChildProcessModule>();
  return { ...actual, spawn: vi.fn(actual.spawn) };
});
const lastSpawned = (): ChildProcess => vi.mocked(spawn).mock.results.at(-1)!.value as ChildProcess;

const exitOf = (child: ReturnType<typeof startUpstreamChild>): Promise<ChildExit> =>
  new Promise((resolve) => child.onExit(resolve));
const startOf = (child: ReturnType<typeof startUpstreamChild>): Promise<ChildStartOutcome> =>
  new Promise((resolve) => child.onStart(resolve));

describe('startUpstreamChild', () => {
  it('keeps a spawn error for a callback registered after it', async () => {
    const child = startUpstreamChild(['/nonexistent/upstream-command', '--flag']);
    const first = await startOf(child);
    // Registered once the outcome is known: it gets the same outcome at once.
    let late: ChildStartOutcome | undefined;
    child.onStart((outcome) => {
      late = outcome;
    });
    expect(late).toBe(first);
    expect(first.ok).toBe(false);
    expect(first.ok === false && first.error.code).toBe('ENOENT');
    expect(child.pid).toBeUndefined();
  });

  it('keeps the output and the exit of a child that exited before adoption', async () => {
    const child = startUpstreamChild([
      process.execPath,
      '-e',
      'process.stdout.write(\'{"jsonrpc":"2.0","method":"notifications/early"}\\n\'); process.exit(4);',
    ]);
    // Node drains an unread stdout right after the exit; 'close' comes once stdout has ended.
    const closed = new Promise((resolve) => lastSpawned().once('close', resolve));
    expect(await exitOf(child)).toEqual({ code: 4, signal: null });
    await closed;
    const transport = await firstValueFrom(
      spawnChildUpstream(
        { argv: [...child.argv], maxLineBytes: 65_536, stopGraceMs: 200, child },
        silentLogger,
      ),
    );
    expect(await firstValueFrom(transport.inbound$.pipe(toArray()))).toEqual([
      { kind: 'frame', frame: { jsonrpc: '2.0', method: 'notifications/early' } },
    ]);
    expect(await firstValueFrom(transport.exit$)).toEqual({ code: 4, signal: null });
    expect(transport.pid).toBe(child.pid);
  });

  it('is stopped by stopUpstreamChild with SIGKILL when it ignores the end of stdin and SIGTERM', async (context) => {
    context.skip(NO_POSIX_SIGNALS, 'Windows has no signal that a process can handle');
    const child = startUpstreamChild([
      process.execPath,
      '-e',
      "process.on('SIGTERM', () => undefined); console.log('ready'); setInterval(() => undefined, 1000);",
    ]);
    // Its SIGTERM handler is in place once it wrote its first line.
    await new Promise((resolve) => child.takeStdout().once('data', resolve));
    const pid = child.pid!;
    const exit = exitOf(child);
    await stopUpstreamChild(child, 200);
    expect(await exit).toEqual({ code: null, signal: 'SIGKILL' });
    await waitFor(() => !isRunning(pid), { what: 'the end of the child' });
  });
});
