/**
 * The listening socket of the shared bridge (docs/shared.md#shared-socket): bound in the checked
 * per-user place (socketPlace.ts); the bind is the arbiter between two shared processes that start
 * at once, and a socket of ours that refuses connections (left by a crash) is removed and replaced.
 */
import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { lstatSync, unlinkSync } from 'node:fs';
import { userInfo } from 'node:os';
import { publishSharedSecret, removeStaleSecret } from './secret.js';
import { prepareSocketPlace, socketPlaceFor } from './socketPlace.js';
import type { SocketPlaceInputs, SocketPlaceRefusal } from './socketPlace.js';

/** How listenShared ended: listening, another shared process answers, or the place was refused. */
export type ListenOutcome =
  | { readonly kind: 'listening'; readonly server: Server; readonly path: string; readonly close: () => void }
  /** Another shared process answers on the path: this one is not needed. */
  | { readonly kind: 'taken'; readonly path: string }
  | { readonly kind: 'refused'; readonly refusal: SocketPlaceRefusal };

/**
 * The path shims connect to: the named pipe `\\.\pipe\mcp-bridge-<user>-shared` on Windows
 * (untested here, docs/shared.md#shared-socket), else the socket of the checked place.
 */
export function sharedPath(
  inputs: SocketPlaceInputs,
):
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly refusal: SocketPlaceRefusal } {
  if (process.platform === 'win32') {
    return { ok: true, path: `\\\\.\\pipe\\mcp-bridge-${userInfo().username}-shared` };
  }
  const prepared = prepareSocketPlace(inputs);
  return prepared.ok ? { ok: true, path: prepared.place.socketPath } : prepared;
}

/**
 * Where the secret of the shared process lives (secret.ts, docs/shared.md#shared-secret): the
 * socket's directory; on Windows the place's directory in the user's own temporary directory.
 */
export const sharedSecretDir = (inputs: SocketPlaceInputs): string => socketPlaceFor(inputs).dir;

/** Whether something answers on `path`: true connected, false refused or absent. */
export function probe(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket: Socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function listenOn(server: Server, path: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const onError = (error: NodeJS.ErrnoException): void => resolve(error);
    server.once('error', onError);
    server.listen(path, () => {
      server.off('error', onError);
      resolve(undefined);
    });
  });
}

/**
 * Binds `server` on the shared path. EADDRINUSE with a live peer: `taken`. With a dead socket of
 * ours (connect refused): it is removed once, with its stale secret, and the bind tried again; a
 * second EADDRINUSE means another process won the race, also `taken`. A path that is not ours is
 * refused, never removed. Once bound, `secret` is written for the shims (secret.ts); a secret file
 * that is not ours is refused (the socket is closed and removed again), and `close` removes both.
 */
export async function listenShared(
  inputs: SocketPlaceInputs,
  onConnection: (socket: Socket) => void,
  secret: string,
): Promise<ListenOutcome> {
  const where = sharedPath(inputs);
  if (!where.ok) return { kind: 'refused', refusal: where.refusal };
  const path = where.path;
  const server = createServer({ allowHalfOpen: false }, onConnection);
  for (let attempt = 0; attempt < 2; attempt++) {
    const error = await listenOn(server, path);
    if (error === undefined) {
      // Our own socket file: removed at close only while it is still the one we bound.
      const bound = process.platform === 'win32' ? undefined : lstatSync(path).ino;
      const published = publishSharedSecret(sharedSecretDir(inputs), inputs.uid, secret);
      if (!published.ok) {
        server.close();
        removeOwn(path, bound);
        return { kind: 'refused', refusal: published.refusal };
      }
      const close = (): void => {
        published.remove();
        removeOwn(path, bound);
      };
      return { kind: 'listening', server, path, close };
    }
    if (error.code !== 'EADDRINUSE' || attempt === 1 || process.platform === 'win32') {
      if (error.code === 'EADDRINUSE') return { kind: 'taken', path };
      throw error;
    }
    if (await probe(path)) return { kind: 'taken', path };
    // Checked again just before the removal: only a socket of this user is ever removed.
    const again = sharedPath(inputs);
    if (!again.ok) return { kind: 'refused', refusal: again.refusal };
    try {
      unlinkSync(path);
    } catch {
      // Removed by the other starter already: the bind decides.
    }
    // Its secret too, so that no shim reads it once this process is bound (docs/shared.md#shared-secret).
    removeStaleSecret(sharedSecretDir(inputs), inputs.uid);
  }
  return { kind: 'taken', path };
}

function removeOwn(path: string, ino: number | undefined): void {
  if (ino === undefined) return;
  try {
    if (lstatSync(path).ino === ino) unlinkSync(path);
  } catch {
    // Gone already.
  }
}
