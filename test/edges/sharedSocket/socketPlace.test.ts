import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { prepareSocketPlace, socketPlaceFor } from '../../../src/edges/sharedSocket/socketPlace.js';

const uid = process.getuid?.() ?? 0;
const isRoot = uid === 0;

describe('socketPlaceFor', () => {
  it('uses $XDG_RUNTIME_DIR/mcp-bridge where set', () => {
    expect(socketPlaceFor({ env: { XDG_RUNTIME_DIR: '/run/user/1000' }, uid: 1000 })).toEqual({
      dir: '/run/user/1000/mcp-bridge',
      socketPath: '/run/user/1000/mcp-bridge/shared.sock',
    });
  });

  it("falls back to <tmp>/mcp-bridge-<uid> when it is unset or empty and no runtime directory is the user's", () => {
    const expected = { dir: '/tmp/x/mcp-bridge-1000', socketPath: '/tmp/x/mcp-bridge-1000/shared.sock' };
    const runUser = '/nonexistent-run-user';
    expect(socketPlaceFor({ env: {}, uid: 1000, runUser, tmp: '/tmp/x' })).toEqual(expected);
    expect(socketPlaceFor({ env: { XDG_RUNTIME_DIR: '' }, uid: 1000, runUser, tmp: '/tmp/x' })).toEqual(
      expected,
    );
  });

  it.skipIf(process.platform === 'win32')(
    'does not follow TMPDIR: a client that drops it finds the same place',
    () => {
      vi.stubEnv('TMPDIR', '/var/folders/a');
      try {
        const place = socketPlaceFor({
          env: { TMPDIR: '/var/folders/a' },
          uid: 1000,
          runUser: '/nonexistent-run-user',
        });
        expect(place.dir).toBe('/tmp/mcp-bridge-1000');
      } finally {
        vi.unstubAllEnvs();
      }
    },
  );

  describe("with the user's runtime directory present", () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'run-user-'));
      mkdirSync(join(root, String(uid)), { mode: 0o700 });
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it.skipIf(process.platform === 'win32')('uses <runUser>/<uid>/mcp-bridge without XDG_RUNTIME_DIR', () => {
      expect(socketPlaceFor({ env: {}, uid, runUser: root, tmp: '/tmp/x' })).toEqual({
        dir: join(root, String(uid), 'mcp-bridge'),
        socketPath: join(root, String(uid), 'mcp-bridge', 'shared.sock'),
      });
    });

    it('passes over a runtime directory of another user', () => {
      const other = uid + 1;
      mkdirSync(join(root, String(other)), { mode: 0o700 });
      expect(socketPlaceFor({ env: {}, uid: other, runUser: root, tmp: '/tmp/x' }).dir).toBe(
        `/tmp/x/mcp-bridge-${String(other)}`,
      );
    });
  });
});

describe('prepareSocketPlace', () => {
  let runtime: string;
  let server: Server | undefined;
  beforeEach(() => {
    runtime = mkdtempSync(join(tmpdir(), 'socket-place-'));
  });
  afterEach(async () => {
    if (server !== undefined) await new Promise((done) => server?.close(done));
    server = undefined;
    rmSync(runtime, { recursive: true, force: true });
  });
  const inputs = () => ({ env: { XDG_RUNTIME_DIR: runtime }, uid });

  it('creates the directory with mode 0700 and accepts it', () => {
    const outcome = prepareSocketPlace(inputs());
    expect(outcome).toEqual({
      ok: true,
      place: { dir: join(runtime, 'mcp-bridge'), socketPath: join(runtime, 'mcp-bridge', 'shared.sock') },
    });
  });

  it('refuses a directory that others can enter', () => {
    mkdirSync(join(runtime, 'mcp-bridge'), { mode: 0o755 });
    chmodSync(join(runtime, 'mcp-bridge'), 0o755);
    expect(prepareSocketPlace(inputs())).toEqual({
      ok: false,
      refusal: { code: 'shared_dir_unsafe', message: `${join(runtime, 'mcp-bridge')} has mode 755, not 700` },
    });
  });

  it('refuses a symbolic link in place of the directory', () => {
    mkdirSync(join(runtime, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(runtime, 'elsewhere'), join(runtime, 'mcp-bridge'));
    expect(prepareSocketPlace(inputs())).toEqual({
      ok: false,
      refusal: { code: 'shared_dir_unsafe', message: `${join(runtime, 'mcp-bridge')} is a symbolic link` },
    });
  });

  it('refuses a plain file at the socket path and leaves it there', () => {
    mkdirSync(join(runtime, 'mcp-bridge'), { mode: 0o700 });
    writeFileSync(join(runtime, 'mcp-bridge', 'shared.sock'), 'planted');
    expect(prepareSocketPlace(inputs())).toEqual({
      ok: false,
      refusal: {
        code: 'shared_socket_unsafe',
        message: `${join(runtime, 'mcp-bridge', 'shared.sock')} is not a socket`,
      },
    });
  });

  it('accepts a socket of its own user at the socket path', async () => {
    mkdirSync(join(runtime, 'mcp-bridge'), { mode: 0o700 });
    const listening = createServer();
    server = listening;
    await new Promise<void>((done) => listening.listen(join(runtime, 'mcp-bridge', 'shared.sock'), done));
    expect(prepareSocketPlace(inputs()).ok).toBe(true);
  });

  it.runIf(isRoot)('refuses a directory planted by another user (uid 65534)', () => {
    mkdirSync(join(runtime, 'mcp-bridge'), { mode: 0o700 });
    chownSync(join(runtime, 'mcp-bridge'), 65534, 65534);
    expect(prepareSocketPlace(inputs())).toEqual({
      ok: false,
      refusal: {
        code: 'shared_dir_unsafe',
        message: `${join(runtime, 'mcp-bridge')} is owned by uid 65534, not 0`,
      },
    });
  });

  it.runIf(isRoot)('refuses a socket planted by another user (uid 65534)', async () => {
    mkdirSync(join(runtime, 'mcp-bridge'), { mode: 0o700 });
    const socketPath = join(runtime, 'mcp-bridge', 'shared.sock');
    const listening = createServer();
    server = listening;
    await new Promise<void>((done) => listening.listen(socketPath, done));
    chownSync(socketPath, 65534, 65534);
    expect(prepareSocketPlace(inputs())).toEqual({
      ok: false,
      refusal: { code: 'shared_socket_unsafe', message: `${socketPath} is owned by uid 65534, not 0` },
    });
  });
});
