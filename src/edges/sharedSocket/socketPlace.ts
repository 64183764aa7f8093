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
  const dirProblem = pathProblem(lstatSync(place.dir), inputs.uid, {
    kind: 'directory',
    mode: 0o700,
    posix: true,
  });
  if (dirProblem !== undefined) return refuse('shared_dir_unsafe', `${place.dir} ${dirProblem}`);
  const socketStat = lstatOrUndefined(place.socketPath);
  const socketProblem =
    socketStat === undefined
      ? undefined
      : pathProblem(socketStat, inputs.uid, { kind: 'socket', posix: true });
  if (socketProblem !== undefined) {
    return refuse('shared_socket_unsafe', `${place.socketPath} ${socketProblem}`);
  }
  return { ok: true, place };
}

/** What a path of the shared process must be, checked with `lstat` before it is used. */
export interface PathRule {
  readonly kind: 'directory' | 'file' | 'socket';
  /** The permission bits it must have exactly; absent: any. */
  readonly mode?: number;
  /** Whether owner and mode mean anything here (false on Windows). */
  readonly posix: boolean;
}

const KIND_PROBLEM = {
  directory: 'is not a directory',
  file: 'is not a regular file',
  socket: 'is not a socket',
};

/**
 * Why a path is not what `rule` asks, or undefined when it is: not a symbolic link (a socket
 * path's kind says it), of that kind, owned by `uid`, with that mode. One rule for the directory,
 * the socket (docs/shared.md#shared-socket) and the secret (docs/shared.md#shared-secret).
 */
export function pathProblem(stat: Stats, uid: number, rule: PathRule): string | undefined {
  if (rule.kind !== 'socket' && stat.isSymbolicLink()) return 'is a symbolic link';
  const kindOk =
    rule.kind === 'directory' ? stat.isDirectory() : rule.kind === 'file' ? stat.isFile() : stat.isSocket();
  if (!kindOk) return KIND_PROBLEM[rule.kind];
  if (!rule.posix) return undefined;
  if (stat.uid !== uid) return `is owned by uid ${String(stat.uid)}, not ${String(uid)}`;
  const mode = stat.mode & 0o777;
  if (rule.mode !== undefined && mode !== rule.mode) {
    return `has mode ${mode.toString(8)}, not ${rule.mode.toString(8)}`;
  }
  return undefined;
}

/** The `lstat` of a path, or undefined when there is none. */
export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function refuse(code: SocketPlaceRefusal['code'], message: string): SocketPlaceOutcome {
  return { ok: false, refusal: { code, message } };
}
