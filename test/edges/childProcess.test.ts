/**
 * The upstream child edge against real processes ("Windows"): `\r\n` line ends from the
 * upstream, a stop that reaches the whole tree, and on Windows a `.cmd` launcher with arguments
 * that cmd.exe would otherwise interpret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { silentLogger } from '../../src/ports/logger.js';
import { killGroup, spawnChildUpstream } from '../../src/edges/childProcess.js';
import { startUpstreamChild } from '../../src/edges/childStart.js';
import type { ChildExit } from '../../src/edges/childStart.js';
import { isRunning } from '../helpers/bridgeProcess.js';

/**
 * A child that exits by itself at the end of its stdin gets a grace far longer than it needs, so
 * that on a loaded machine its own exit comes before the SIGTERM; the tests of the SIGTERM give
 * `SHORT_GRACE_MS` to children that ignore the end of stdin.
 */
const LONG_GRACE_MS = 30_000;
// Long enough that the SIGTERM reaches a started Node (not the SIGKILL at twice the grace) under load.
const SHORT_GRACE_MS = 1_000;
const config = (argv: string[], stopGraceMs = LONG_GRACE_MS) => ({ argv, maxLineBytes: 65_536, stopGraceMs });

/** A child that writes a frame, a line of only `\r\n`, then a frame, all with Windows line ends. */
const CRLF_CHILD = [
  'process.stdout.write(\'{"jsonrpc":"2.0","id":1,"result":{}}\\r\\n\');',
  'process.stdout.write(\'\\r\\n{"jsonrpc":"2.0","method":"notifications/x"}\\r\\n\');',
  "process.stdin.on('end', () => process.exit(0)).resume();",
].join('\n');

/** A child that closes its stdin (the descriptor itself), says so on stdout, and would run for a minute. */
const CLOSES_STDIN = [
  "require('node:fs').closeSync(0);",
  'process.stdout.write(\'{"jsonrpc":"2.0","method":"ready"}\\n\');',
  'setTimeout(() => {}, 60000);',
].join('\n');

describe('spawnChildUpstream', () => {
  it('accepts \\r\\n line ends from the upstream (a line of only \\r\\n is skipped)', async () => {
    const transport = await firstValueFrom(
      spawnChildUpstream(config([process.execPath, '-e', CRLF_CHILD]), silentLogger),
    );
    const exit = firstValueFrom(transport.exit$);
    const inbound = await firstValueFrom(transport.inbound$.pipe(take(2), toArray()));
    transport.close();
    expect(inbound).toEqual([
      { kind: 'frame', frame: { jsonrpc: '2.0', id: 1, result: {} } },
      { kind: 'frame', frame: { jsonrpc: '2.0', method: 'notifications/x' } },
    ]);
    expect(await exit).toEqual({ code: 0, signal: null });
  });

  it('completes once it emitted the transport, which then owns the child', async () => {
    const transport = await lastValueFrom(
      spawnChildUpstream(config([process.execPath, '-e', CRLF_CHILD]), silentLogger),
    );
    transport.close();
    expect(await firstValueFrom(transport.exit$)).toEqual({ code: 0, signal: null });
  });

  it('stops the child when unsubscribed before its spawn event: stdin ends, then SIGTERM', async (context) => {
    context.skip(process.platform === 'win32', 'Windows has no SIGTERM to a process group');
    // Ignores the end of its stdin: only the SIGTERM after the grace stops it.
    const child = startUpstreamChild([process.execPath, '-e', 'setInterval(() => undefined, 1000);']);
    const exit = new Promise<ChildExit>((resolve) => child.onExit(resolve));
    const subscription = spawnChildUpstream(
      { ...config([...child.argv], SHORT_GRACE_MS), child },
      silentLogger,
    ).subscribe();
    // In the same turn as the spawn: Node reports the spawn event in a later one.
    subscription.unsubscribe();
    expect(await exit).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('stops a child whose stdin fails (it closed it and runs on), so that its exit ends the connection', async () => {
    const lines: string[] = [];
    const logger = {
      log: (_s: string, _l: string, text: string) => void lines.push(text),
      enabled: () => false,
    };
    // Closes its stdin, says so on stdout, and would run for a minute.
    const child = CLOSES_STDIN;
    const transport = await firstValueFrom(
      spawnChildUpstream(config([process.execPath, '-e', child], SHORT_GRACE_MS), logger),
    );
    const exit = firstValueFrom(transport.exit$);
    await firstValueFrom(transport.inbound$);
    // Writes until the pipe reports its closed reader (EPIPE), which the first write may not.
    const writing = setInterval(() => transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' }), 5);
    try {
      expect((await exit).signal).toBe('SIGTERM');
    } finally {
      clearInterval(writing);
    }
    expect(lines).toContain('writing to the upstream command failed (EPIPE); the bridge stops it');
  });

  it('stops the whole tree: a grandchild that ignores the end of stdin goes too', async () => {
    // The child starts a grandchild that would live for a minute, prints its pid, and ignores stdin's end.
    const source = [
      "const { spawn } = require('node:child_process');",
      "const g = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });",
      'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "pid", params: { pid: g.pid } }) + "\\n");',
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const transport = await firstValueFrom(
      spawnChildUpstream(config([process.execPath, '-e', source]), silentLogger),
    );
    const first = await firstValueFrom(transport.inbound$);
    const params = first.kind === 'frame' && 'params' in first.frame ? first.frame.params : undefined;
    const grandchild = Number((params as { pid?: unknown } | undefined)?.pid);
    expect(grandchild).toBeGreaterThan(0);
    expect(isRunning(grandchild)).toBe(true);
    const exit = firstValueFrom(transport.exit$);
    killGroup(transport.pid);
    await exit;
    await waitFor(() => !isRunning(grandchild), { timeoutMs: 10_000, what: 'the grandchild stops' });
  });

  // Windows only: cmd.exe and `.cmd` launchers exist there alone; the rules themselves are
  // unit-tested on every platform in childProcess.plan.test.ts.
  it.skipIf(process.platform !== 'win32')(
    'starts a .cmd launcher with arguments that cmd.exe would otherwise interpret',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-cmd-'));
      try {
        const echo = join(dir, 'echo.js');
        writeFileSync(
          echo,
          'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "argv", params: { argv: process.argv.slice(2) } }) + "\\n");',
        );
        const launcher = join(dir, 'launch.cmd');
        writeFileSync(launcher, `@"${process.execPath}" "${echo}" %*\r\n`);
        const args = ['a&b', 'c|d', 'say "hi"', '100%', '^caret', 'x y'];
        const transport = await firstValueFrom(spawnChildUpstream(config([launcher, ...args]), silentLogger));
        const first = await firstValueFrom(transport.inbound$);
        transport.close();
        expect(first).toEqual({
          kind: 'frame',
          frame: { jsonrpc: '2.0', method: 'argv', params: { argv: args } },
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
