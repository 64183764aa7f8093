/**
 * Back-pressure (docs/testing.md#testing-properties): a client that never reads stdout while results
 * pile up. The bridge must
 * stop reading its inputs (src/edges/flowControl.ts), so that its memory stays bounded and the
 * client's own writes block; once the client reads again, every answer arrives. Needs the build.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_PROC } from '../helpers/platform.js';
import { createFlowControl } from '../../src/edges/flowControl.js';
import { BRIDGE, initializeRequest, scripted } from '../helpers/bridgeProcess.js';
import { rssKiB, sleep, waitFor } from './support.js';

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('createFlowControl', () => {
  it('pauses every input while the output waits for a drain, and resumes them at the drain', async () => {
    const output = new PassThrough({ highWaterMark: 4 });
    const calls: string[] = [];
    const input = (name: string) => ({
      pause: () => calls.push(`${name} pause`),
      resume: () => calls.push(`${name} resume`),
    });
    const flow = createFlowControl(output, [input('stdin')]);
    flow.check();
    expect(calls).toEqual([]);
    output.write('12345678');
    flow.check();
    flow.check();
    flow.add(input('upstream'));
    expect(calls).toEqual(['stdin pause', 'upstream pause']);
    expect(flow.paused).toBe(true);
    const drained = once(output, 'drain');
    output.read();
    await drained;
    expect(calls).toEqual(['stdin pause', 'upstream pause', 'stdin resume', 'upstream resume']);
    expect(flow.paused).toBe(false);
  });
});

const EMBEDDED = fileURLToPath(new URL('../../dist/test/fixtures/embeddedServer.js', import.meta.url));

describe.each([
  { name: 'the bridge', argv: [BRIDGE, '--', ...scripted('echo')] },
  { name: 'the embedded server on the legacy path', argv: [EMBEDDED] },
])('a client that does not read the stdout of $name', ({ argv }) => {
  it(
    'stops the reading: memory stays bounded, and every answer comes once the client reads',
    { timeout: 60_000 },
    async (context) => {
      context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
      const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
      children.push(child);
      child.stdin.on('error', () => undefined);
      const pid = child.pid!;
      const write = (frame: object): Promise<boolean> =>
        new Promise((resolve) => {
          if (child.stdin.write(`${JSON.stringify(frame)}\n`)) resolve(true);
          else {
            const timer = setTimeout(() => resolve(false), 1_500);
            child.stdin.once('drain', () => {
              clearTimeout(timer);
              resolve(true);
            });
          }
        });
      // stdout is never read: nothing consumes it until the client "reads again" below.
      await write(initializeRequest(0));
      // The answer of initialize is the sentinel that the process is up: memory is sampled after it.
      // It stays in the stream's buffer, unread, for the reader below.
      await once(child.stdout, 'readable');
      const before = rssKiB(pid)!;
      const text = 'x'.repeat(100_000);
      let sent = 0;
      const sendUntil = Date.now() + 8_000;
      // Each call comes back as a 100 kB result; without back-pressure they would pile up in memory.
      while (Date.now() < sendUntil && sent < 5_000) {
        sent += 1;
        const call = {
          jsonrpc: '2.0',
          id: sent,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text } },
        };
        if (!(await write(call))) break;
      }
      const blockedAfter = sent;
      // real timer: a stall is the subject; memory is sampled a while after the writes blocked, as
      // no event marks input that the bridge does not read.
      await sleep(1_000);
      const after = rssKiB(pid)!;
      console.log(
        `back-pressure (${argv.length === 1 ? 'embedded' : 'bridge'}): the client's writes blocked after ` +
          `${blockedAfter} calls of 100 kB; RSS ${before} KiB before, ${after} KiB while blocked`,
      );
      // The writes blocked (a loaded machine may stop the loop by time first, with few calls sent).
      expect(blockedAfter).toBeLessThan(1_000);
      expect(after - before).toBeLessThan(100 * 1024);

      // The client reads again: every call gets its answer, then the process stops at the end of stdin.
      const answered = new Set<number>();
      createInterface({ input: child.stdout }).on('line', (line) => {
        const frame = JSON.parse(line) as { id?: number; result?: unknown };
        if (typeof frame.id === 'number' && frame.id > 0 && frame.result !== undefined)
          answered.add(frame.id);
      });
      await waitFor(() => answered.size >= blockedAfter, { timeoutMs: 20_000, what: 'every answer' });
      expect(answered.size).toBe(blockedAfter);
      child.stdin.end();
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
    },
  );
});
