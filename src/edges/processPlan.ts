/**
 * How the upstream child is started and how its process tree is stopped, per platform
 * (docs/upstream.md#upstream-stdio, docs/upstream.md#upstream-stdio-stop). Pure: the platform, the environment and the file check come in as arguments, so that
 * the Windows rules are unit-tested on every platform; childProcess.ts carries the plans out.
 *
 * - POSIX: the command as given, in its own process group (`detached`), so that a signal to `-pid`
 *   reaches every process the upstream started (docs/upstream.md#upstream-transports).
 * - Windows: no process groups; the tree is stopped by `taskkill /T /F /PID <pid>`, spawned without
 *   a shell. Node refuses to spawn `.cmd`/`.bat` launchers (such as `npx.cmd`) directly since
 *   CVE-2024-27980, so like `cross-spawn` (which the MCP SDK's stdio client uses) the bridge finds
 *   the command on `PATH` with `PATHEXT` and runs anything that is not a `.exe`/`.com` through
 *   `cmd.exe /d /s /c "<command> <arguments>"`, every part escaped by cross-spawn's own escaping
 *   (never joined unescaped), with `windowsVerbatimArguments` so that Node adds no quoting of its own.
 */
import { win32 } from 'node:path';
import escape from 'cross-spawn/lib/util/escape.js';

export interface SpawnPlan {
  readonly file: string;
  readonly args: readonly string[];
  /** POSIX: its own process group. */
  readonly detached: boolean;
  /** Windows: the arguments are already quoted for cmd.exe. */
  readonly windowsVerbatimArguments: boolean;
}

export type KillPlan =
  /** `process.kill(target, signal)`; a negative target is the process group. */
  | { readonly kind: 'signal'; readonly target: number; readonly signal: NodeJS.Signals }
  /** Spawn `file args` without a shell. */
  | { readonly kind: 'command'; readonly file: string; readonly args: readonly string[] };

/** Where Windows looks when `PATHEXT` is not set (cmd.exe's own default order). */
const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';
const EXECUTABLE = /\.(?:com|exe)$/i;
/** A cmd-shim of npm: its own cmd.exe undoes one level of `^` escapes, thus escape twice (cross-spawn). */
const CMD_SHIM = /node_modules[\\/]\.bin[\\/][^\\/]+\.cmd$/i;

/** An environment variable by name, case-insensitively as on Windows (`Path`, `PATHEXT`, `ComSpec`). */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const key = Object.keys(env).find((candidate) => candidate.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

/**
 * The file Windows would start for `command`: as given when it has an extension or is not found,
 * else the first `<dir>\<command><ext>` on `PATH` (or beside a given directory) that `isFile` finds.
 */
export function resolveWindowsCommand(
  command: string,
  env: NodeJS.ProcessEnv,
  isFile: (path: string) => boolean,
): string | undefined {
  const extensions = (envValue(env, 'PATHEXT') ?? DEFAULT_PATHEXT).split(';').filter((ext) => ext !== '');
  const withExtensions = (base: string): string[] =>
    win32.extname(base) !== '' ? [base] : extensions.map((ext) => base + ext.toLowerCase());
  const hasDirectory = /[\\/]/.test(command);
  const bases = hasDirectory
    ? [win32.normalize(command)]
    : (envValue(env, 'PATH') ?? '')
        .split(';')
        .filter((dir) => dir !== '')
        .map((dir) => win32.join(dir.replace(/^"(.*)"$/, '$1'), command));
  for (const base of bases) {
    const found = withExtensions(base).find((candidate) => isFile(candidate));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** How to spawn the upstream `argv` (command first, non-empty) on `platform`. */
export function upstreamSpawnPlan(
  argv: readonly [string, ...string[]],
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  isFile: (path: string) => boolean,
): SpawnPlan {
  const [command, ...args] = argv;
  if (platform !== 'win32') return { file: command, args, detached: true, windowsVerbatimArguments: false };
  const resolved = resolveWindowsCommand(command, env, isFile);
  // Not found: spawn it as given, so that the failure is Node's ENOENT (`spawn_failed`), not cmd.exe's text.
  if (resolved === undefined || EXECUTABLE.test(resolved)) {
    return { file: resolved ?? command, args, detached: false, windowsVerbatimArguments: false };
  }
  const twice = CMD_SHIM.test(resolved);
  const line = [escape.command(win32.normalize(command)), ...args.map((arg) => escape.argument(arg, twice))];
  return {
    file: envValue(env, 'COMSPEC') ?? 'cmd.exe',
    args: ['/d', '/s', '/c', `"${line.join(' ')}"`],
    detached: false,
    windowsVerbatimArguments: true,
  };
}

/**
 * How to stop the process tree of `pid` with `signal` on `platform`. Windows has no signals to a
 * group: `taskkill` from System32 (not from `PATH`) ends the tree at once, whatever the signal.
 */
export function treeKillPlan(
  pid: number,
  signal: NodeJS.Signals,
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
): KillPlan {
  if (platform !== 'win32') return { kind: 'signal', target: -pid, signal };
  const systemRoot = envValue(env, 'SYSTEMROOT') ?? 'C:\\Windows';
  return {
    kind: 'command',
    file: win32.join(systemRoot, 'System32', 'taskkill.exe'),
    args: ['/T', '/F', '/PID', String(pid)],
  };
}
