/**
 * The secret of the shared process (docs/shared.md#shared-secret, SECURITY.md): its file beside
 * the socket is the user's, mode 0600, fresh for each shared process; a connection of the same user
 * whose hello lacks it, or carries a wrong one, is refused with one line and gets nothing of any
 * session; a secret file of another user, or a symbolic link, is refused and left. The planted
 * file needs root (chown); elsewhere that test skips with the reason. Needs the build.
 */
import { chownSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { TestContext } from 'vitest';
import { createRecordReader, record, TO_SHARED } from '../../src/edges/sharedSocket/records.js';
import { FIXTURE, exitWithin, handshakeWithin, req } from '../helpers/bridgeProcess.js';
import { responseTo } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import { SHARED_STARTUP_MS, sharedPlace, startShim } from './sharedSupport.js';
import type { SharedPlace } from './sharedSupport.js';

const STARTUP_MS = SHARED_STARTUP_MS;
const OTHER_UID = 65534;
const IS_ROOT = process.getuid?.() === 0;
const uid = process.getuid?.() ?? 0;

vi.setConfig({ maxConcurrency: 1 });

/** Sends one hello (and an initialize line after it) on a raw connection; every record it got. */
function rawHello(place: SharedPlace, hello: Record<string, unknown>): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(join(place.dir, 'shared.sock'));
    const got: string[] = [];
    let current = '';
    socket.on(
      'data',
      createRecordReader({
        piece: (kind, piece) => {
          current = (current === '' ? String.fromCharCode(kind) : current) + piece.toString('utf8');
        },
        end: (kind) => {
          got.push(current === '' ? String.fromCharCode(kind) : current);
          current = '';
        },
      }),
    );
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(record(TO_SHARED.hello, JSON.stringify(hello)));
      socket.write(record(TO_SHARED.line, JSON.stringify(req(1, 'tools/list'))));
    });
    socket.once('close', () => resolve(got));
  });
}

const secretOf = (place: SharedPlace): string => readFileSync(join(place.dir, 'shared.secret'), 'utf8');

describe('the secret of the shared process', () => {
  it('refuses a connection of the same user with no secret or a wrong one: one line, exit 1, nothing of a session', async (context) => {
    const place = sharedPlace(context);
    const shim = startShim(context, place);
    await handshakeWithin(shim, STARTUP_MS);
    const hello = {
      v: 1,
      kind: 'session',
      profile: 'mcp-bridge',
      argv: ['--', process.execPath, FIXTURE],
      cwd: process.cwd(),
      env: place.env,
    };
    const refusal = (why: string): string[] => [
      `Emcp-bridge: shared: error: the shared bridge refused this connection: its hello carried ${why} (shared_secret_refused)`,
      'X1',
    ];
    expect(await rawHello(place, hello)).toEqual(refusal('no secret'));
    expect(await rawHello(place, { ...hello, secret: 'ab'.repeat(32) })).toEqual(refusal('a wrong secret'));
    // `shared status` without it gets no status either.
    expect(await rawHello(place, { ...hello, kind: 'status' })).toEqual(refusal('no secret'));
    await waitFor(() => place.log().filter((line) => line.includes('refused a connection')).length === 3);
    expect(place.log().filter((line) => line.includes('refused a connection'))).toEqual([
      'mcp-bridge: shared: warning: refused a connection: its hello carried no secret',
      'mcp-bridge: shared: warning: refused a connection: its hello carried a wrong secret',
      'mcp-bridge: shared: warning: refused a connection: its hello carried no secret',
    ]);
    expect(place.log().join('\n')).not.toContain(secretOf(place));
    // The shim of the user, with the secret, is served as before.
    shim.send(req(2, 'tools/call', { name: 'echo', arguments: { text: 'still here' } }));
    expect((await shim.nextFrame(responseTo(2), STARTUP_MS))['result']).toEqual({
      content: [{ type: 'text', text: 'still here' }],
    });
  });

  it('writes a secret of 32 random bytes, 0600 and the user’s, and a new one when a new process takes over', async (context) => {
    const place = sharedPlace(context);
    const first = startShim(context, place);
    await handshakeWithin(first, STARTUP_MS);
    const stat = lstatSync(join(place.dir, 'shared.secret'));
    expect([stat.isFile(), stat.mode & 0o777, stat.uid]).toEqual([true, 0o600, uid]);
    const before = secretOf(place);
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    // A crash leaves the socket and the secret: the next shared process replaces both.
    const pid = await place.daemonPid();
    process.kill(pid, 'SIGKILL');
    expect((await exitWithin(first, STARTUP_MS)).code).toBe(1);
    const second = startShim(context, place);
    await handshakeWithin(second, STARTUP_MS);
    const after = secretOf(place);
    expect(after).toMatch(/^[0-9a-f]{64}$/);
    expect(after).not.toBe(before);
  });

  it('refuses a secret file of another user, or a symbolic link, and leaves it', async (context: TestContext) => {
    context.skip(!IS_ROOT, 'this test chowns a file to uid 65534: it needs root');
    const place = sharedPlace(context);
    mkdirSync(place.dir, { mode: 0o700 });
    const path = join(place.dir, 'shared.secret');
    writeFileSync(path, 'cd'.repeat(32), { mode: 0o600 });
    chownSync(path, OTHER_UID, OTHER_UID);
    const shim = startShim(context, place);
    expect(await exitWithin(shim, STARTUP_MS)).toMatchObject({ code: 1, signal: null });
    expect(shim.stderr).toEqual([
      `mcp-bridge: bridge: error: ${path} is owned by uid ${OTHER_UID}, not ${String(uid)} (shared_secret_unsafe)`,
    ]);
    expect([lstatSync(path).uid, readFileSync(path, 'utf8')]).toEqual([OTHER_UID, 'cd'.repeat(32)]);
    expect(place.log()).toEqual([]);

    const other = sharedPlace(context);
    mkdirSync(other.dir, { mode: 0o700 });
    const target = join(other.dir, 'target');
    writeFileSync(target, 'ef'.repeat(32), { mode: 0o600 });
    const link = join(other.dir, 'shared.secret');
    symlinkSync(target, link);
    const linked = startShim(context, other);
    expect(await exitWithin(linked, STARTUP_MS)).toMatchObject({ code: 1, signal: null });
    expect(linked.stderr).toEqual([
      `mcp-bridge: bridge: error: ${link} is a symbolic link (shared_secret_unsafe)`,
    ]);
    expect([lstatSync(link).isSymbolicLink(), readFileSync(target, 'utf8')]).toEqual([true, 'ef'.repeat(32)]);
  });
});
