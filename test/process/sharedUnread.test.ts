/**
 * The bound of a shim's unread output (docs/shared.md#shared-sessions): a client of the socket
 * that stops reading is disconnected when a frame comes while more than 16 MiB are still unread,
 * and the other session goes on. That one frame alone may be larger than the bound is the
 * `--shared` run of test/process/largeResult.test.ts.
 * Needs the build (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import { createRecordReader, record, TO_SHARED, TO_SHIM } from '../../src/edges/sharedSocket/records.js';
import { GENERIC_BRIDGE, handshakeWithin, initializeRequest, note, req } from '../helpers/bridgeProcess.js';
import { responseTo } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import { sharedPlace, startShim } from './sharedSupport.js';

const STARTUP_MS = 30_000;
const MIB = 1024 * 1024;

/** An upstream whose tool `big` answers with 16 MiB of text, and says so on its stderr (daemon.log). */
const BIG_UPSTREAM = [
  "const { createInterface } = require('node:readline');",
  "const out = (frame) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...frame }) + '\\n');",
  "createInterface({ input: process.stdin }).on('line', (line) => {",
  '  const m = JSON.parse(line);',
  '  if (m.id === undefined) return;',
  "  if (m.method === 'server/discover') return out({ id: m.id, result: { resultType: 'complete',",
  "    supportedVersions: ['2026-07-28'], capabilities: { tools: {} } } });",
  "  out({ id: m.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'x'.repeat(16 * 1024 * 1024) }] } });",
  "  process.stderr.write('big-upstream: answered ' + m.id + '\\n');",
  '});',
].join('\n');

/** The sessions that `shared status` counts in the test's place. */
function sessionCount(env: NodeJS.ProcessEnv): number | undefined {
  const status = spawnSync(process.execPath, [GENERIC_BRIDGE, 'shared', 'status'], { env, encoding: 'utf8' });
  const match = /, (\d+) sessions,/.exec(status.stdout);
  return match === null ? undefined : Number(match[1]);
}

describe('the unread output of a shim', () => {
  it('is disconnected at a frame that comes with more than 16 MiB unread; the other session goes on', async (context: TestContext) => {
    const place = sharedPlace(context);
    const other = startShim(context, place);
    await handshakeWithin(other, STARTUP_MS);
    // A client of the socket that reads its initialize result, then nothing until the shared
    // process let it go.
    const socket = connect(join(place.dir, 'shared.sock'));
    context.onTestFinished(() => void socket.destroy());
    const frames: number[] = [];
    const kinds: number[] = [];
    let size = 0;
    const read = createRecordReader({
      piece: (_kind, piece) => {
        size += piece.length;
      },
      end: (kind) => {
        kinds.push(kind);
        if (kind === TO_SHIM.frame) frames.push(size);
        size = 0;
      },
    });
    socket.on('data', read);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const send = (frame: object): boolean => socket.write(record(TO_SHARED.line, JSON.stringify(frame)));
    const argv = ['--', process.execPath, '-e', BIG_UPSTREAM];
    // With the shared process's secret, as a shim sends it (docs/shared.md#shared-secret).
    const secret = readFileSync(join(place.dir, 'shared.secret'), 'utf8');
    const hello = {
      v: 1,
      kind: 'session',
      profile: 'mcp-bridge',
      argv,
      cwd: process.cwd(),
      env: place.env,
      secret,
    };
    socket.write(record(TO_SHARED.hello, JSON.stringify(hello)));
    send(initializeRequest(1));
    await waitFor(() => frames.length === 1, { timeoutMs: STARTUP_MS, what: 'the initialize result' });
    socket.pause();
    send(note('notifications/initialized'));
    for (const id of [2, 3, 4]) send(req(id, 'tools/call', { name: 'big', arguments: {} }));
    // Its session ends at a frame that comes after the upstream's third answer at the latest.
    await waitFor(() => place.log().includes('big-upstream: answered 4'), { what: 'the third answer' });
    await waitFor(() => sessionCount(place.env) === 1, { what: 'the end of the session that reads nothing' });
    // What it gets when it reads at last: whole frames, then the end without an exit record.
    socket.resume();
    await closed;
    expect(kinds).not.toContain(TO_SHIM.exit);
    // Never the three answers: what the shared process still held for it was dropped.
    expect(frames.filter((bytes) => bytes === 16 * MIB + 73).length).toBeLessThan(3);
    // The other session on the same shared process still answers.
    other.send(req('after', 'ping'));
    expect(await other.nextFrame(responseTo('after'), STARTUP_MS)).toEqual({
      jsonrpc: '2.0',
      id: 'after',
      result: {},
    });
  });
});
