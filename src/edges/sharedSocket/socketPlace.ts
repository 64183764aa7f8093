/**
 * Where the shared bridge listens, and the checks made before anything is used there
 * (docs/shared.md): a per-user directory that only its owner can enter is the barrier against
 * another local user on Linux, so a directory or socket path that another user planted in advance
 * is refused, never used nor removed. Node built-ins only: the shim loads this before anything heavy.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the shared bridge's socket lives, for this user. */
export interface SocketPlace {
  readonly dir: string;
  readonly socketPath: string;
}

/** Why a place was refused: a stable code and a message that names the path (no secret in it). */
export interface SocketPlaceRefusal {
  readonly code: 'shared_dir_unsafe' | 'shared_socket_unsafe' | 'shared_secret_unsafe';
  readonly message: string;
}

export type SocketPlaceOutcome =
  | { readonly ok: true; readonly place: SocketPlace }
  | { readonly ok: false; readonly refusal: SocketPlaceRefusal };

/**
 * What the place depends on: the environment, the user's id, and (for tests) the root of the
 * per-user runtime directories (`/run/user`) and the temporary directory (`/tmp`).
 */
export interface SocketPlaceInputs {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly uid: number;
  readonly runUser?: string;
  readonly tmp?: string;
}

/**
 * `$XDG_RUNTIME_DIR/mcp-bridge/` where set; else `/run/user/<uid>/mcp-bridge/` where that runtime
 * directory exists and is the user's; else `/tmp/mcp-bridge-<uid>/`. Every client must find the same
 * place from its own environment: Codex starts servers with a few variables only (no
 * `XDG_RUNTIME_DIR`, no `TMPDIR`), so the fallbacks name fixed paths, not `os.tmpdir()`
 * (docs/shared.md#shared-socket).
 */
export function socketPlaceFor(inputs: SocketPlaceInputs): SocketPlace {
  const runtime = inputs.env['XDG_RUNTIME_DIR'];
  const dir =
    runtime !== undefined && runtime !== ''
      ? join(runtime, 'mcp-bridge')
      : (userRuntimeDir(inputs) ?? join(inputs.tmp ?? fallbackTmp(), `mcp-bridge-${String(inputs.uid)}`));
  return { dir, socketPath: join(dir, 'shared.sock') };
}

/** `<runUser>/<uid>/mcp-bridge` when `<runUser>/<uid>` is a real directory owned by the user. */
function userRuntimeDir(inputs: SocketPlaceInputs): string | undefined {
  if (process.platform === 'win32') return undefined;
  const own = join(inputs.runUser ?? '/run/user', String(inputs.uid));
  const stat = lstatOrUndefined(own);
  return stat?.isDirectory() === true && stat.uid === inputs.uid ? join(own, 'mcp-bridge') : undefined;
}

function fallbackTmp(): string {
  return process.platform === 'win32' ? tmpdir() : '/tmp';
}

/**
 * Creates the directory (0700) when absent, then checks it: a real directory (lstat, so a
 * symlink is refused), owned by `uid`, mode 0700; and the socket path, when present, a socket
 * owned by `uid`. Nothing is changed on a refusal.
 */
export function prepareSocketPlace(inputs: SocketPlaceInputs): SocketPlaceOutcome {
  const place = socketPlaceFor(inputs);
  try {
    mkdirSync(place.dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    return refuse('shared_dir_unsafe', `cannot create ${place.dir}: ${(error as Error).message}`);
  }
  const dirProblem = dirCheck(lstatSync(place.dir), inputs.uid);
  if (dirProblem !== undefined) return refuse('shared_dir_unsafe', `${place.dir} ${dirProblem}`);
  const socketStat = lstatOrUndefined(place.socketPath);
  const socketProblem = socketStat === undefined ? undefined : socketCheck(socketStat, inputs.uid);
  if (socketProblem !== undefined) {
    return refuse('shared_socket_unsafe', `${place.socketPath} ${socketProblem}`);
  }
  return { ok: true, place };
}

function dirCheck(stat: Stats, uid: number): string | undefined {
  if (stat.isSymbolicLink()) return 'is a symbolic link';
  if (!stat.isDirectory()) return 'is not a directory';
  if (stat.uid !== uid) return `is owned by uid ${String(stat.uid)}, not ${String(uid)}`;
  if ((stat.mode & 0o777) !== 0o700) return `has mode ${(stat.mode & 0o777).toString(8)}, not 700`;
  return undefined;
}

function socketCheck(stat: Stats, uid: number): string | undefined {
  if (!stat.isSocket()) return 'is not a socket';
  if (stat.uid !== uid) return `is owned by uid ${String(stat.uid)}, not ${String(uid)}`;
  return undefined;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function refuse(code: SocketPlaceRefusal['code'], message: string): SocketPlaceOutcome {
  return { ok: false, refusal: { code, message } };
}
