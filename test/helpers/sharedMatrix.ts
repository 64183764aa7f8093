/**
 * The `--shared` matrix (docs/testing.md#testing-shared-matrix): the project `shared` of
 * vitest.config.ts runs the process and interop tests of the stdio bridge a second time with
 * MCP_BRIDGE_TEST_SHARED=1. Then each start of a stdio form of the built executable
 * (`node dist/bin/<name>.js [options] -- <command>` or `… <url>`) becomes a shim of the shared
 * bridge (docs/shared.md): `--shared` before its options, a runtime directory of its own
 * (XDG_RUNTIME_DIR), so that no two bridges of a test, and no two tests, join one shared process,
 * `--shared-grace 0`, so that the upstream stops with its one session as the stdio bridge's child
 * does, and `--shared-idle 5`, so that the shared process ends soon after its shim.
 * `stopSharedProcesses` (the project's setup file) stops what is left at the end of each file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { COMMANDS } from '../../src/cli/sharedSwitch.js';
import { processTable } from './processTable.js';
import { waitFor } from './waitFor.js';

/** Whether this run is the shared one of the matrix. */
export const SHARED_MATRIX = process.env['MCP_BRIDGE_TEST_SHARED'] === '1';

const BUNDLES = new Set(['mcp-bridge-vscode.js', 'mcp-bridge.js']);
/** Seconds the shared process stays after its shim left (docs/shared.md#shared-lifecycle). */
const IDLE_SECONDS = '5';

/** The runtime directory of each shim started so far, by the shim's pid. */
const runtimes = new Map<number, string>();
/** Every runtime directory made so far, also of shims whose pid is not known here. */
const made = new Set<string>();

export interface SpawnPlan {
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv | undefined;
  /** The shim's runtime directory, when this start is a shim. */
  readonly runtime?: string;
}

/** Whether `node <args>` starts a stdio form of the built executable. */
function isStdioBridge(cmd: string, args: readonly string[]): boolean {
  const [main, first] = args;
  if (cmd !== process.execPath || main === undefined || !main.includes('/dist/bin/')) return false;
  // The commands of their own are never shared (src/cli/sharedSwitch.ts).
  return BUNDLES.has(basename(main)) && !(first !== undefined && COMMANDS.has(first));
}

/**
 * What spawnPeer (rawPeer.ts) or a test's transport starts: unchanged outside the matrix or for
 * anything but a stdio form, else the shim with its own runtime directory. `env` undefined means
 * the caller's default environment, `defaults`.
 */
export function sharedPlan(
  cmd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv | undefined,
  defaults: NodeJS.ProcessEnv = process.env,
): SpawnPlan {
  if (!SHARED_MATRIX || !isStdioBridge(cmd, args)) return { cmd, args, env };
  const runtime = mkdtempSync(join(tmpdir(), 'bridge-matrix-'));
  made.add(runtime);
  const [main, ...rest] = args;
  return {
    cmd,
    args: [main!, '--shared', '--shared-grace', '0', '--shared-idle', IDLE_SECONDS, ...rest],
    env: { ...(env ?? defaults), XDG_RUNTIME_DIR: runtime },
    runtime,
  };
}

/** Records the shim's pid with its runtime directory, once it runs. */
export function rememberShim(pid: number | undefined, runtime: string | undefined): void {
  if (pid !== undefined && runtime !== undefined) runtimes.set(pid, runtime);
}

/**
 * The parameters of an SDK's StdioClientTransport for the built executable, through sharedPlan;
 * `defaults` is the SDK's default environment (getDefaultEnvironment), used when `env` is unset.
 */
export function sharedTransport<T extends { command: string; args?: string[]; env?: Record<string, string> }>(
  params: T,
  defaults: Record<string, string>,
): T {
  const plan = sharedPlan(params.command, params.args ?? [], params.env, defaults);
  if (plan.runtime === undefined) return params;
  return { ...params, args: [...plan.args], env: plan.env as Record<string, string> };
}

/** The log of the shared process of a runtime directory, whole lines only. */
function logOf(runtime: string): string[] {
  try {
    const lines = readFileSync(join(runtime, 'mcp-bridge', 'daemon.log'), 'utf8').split('\n');
    lines.pop();
    return lines;
  } catch {
    return [];
  }
}

/**
 * The whole lines so far of the shared process's log of a shim: its own lines and its upstream's
 * stderr. Never the piece after the last newline, so that a line is read once, whole.
 */
export function daemonLog(shimPid: number): string[] {
  const runtime = runtimes.get(shimPid);
  return runtime === undefined ? [] : logOf(runtime);
}

const pidsIn = (lines: readonly string[]): number[] =>
  lines.flatMap((line) => {
    const match = /the shared bridge listens \(pid (\d+)\)/.exec(line);
    return match === null ? [] : [Number(match[1])];
  });

/**
 * The processes that a shim's bridge runs as its children: in the matrix the children of its
 * shared process (the upstream), else the children of the process itself.
 */
export function bridgeChildren(pid: number): number[] {
  if (!runtimes.has(pid)) return processTable.childPids(pid);
  return pidsIn(daemonLog(pid)).flatMap((daemon) =>
    processTable.isRunning(daemon) ? processTable.childPids(daemon) : [],
  );
}

/**
 * The process that runs the bridge of `pid`: in the matrix its shim's shared process (undefined
 * until it listens), else the process itself.
 */
export function bridgeProcess(pid: number): number | undefined {
  if (!runtimes.has(pid)) return pid;
  return pidsIn(daemonLog(pid)).at(-1);
}

/**
 * Stops every shared process of the shims of this file (SIGTERM: it stops its upstreams as
 * `shared stop` does), waits until each is gone, and removes their runtime directories.
 */
export async function stopSharedProcesses(): Promise<void> {
  const pids = [...made].flatMap((runtime) => pidsIn(logOf(runtime)));
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Gone already (its idle time ended).
    }
  }
  await waitFor(() => pids.every((pid) => !processTable.isRunning(pid)), {
    what: 'the end of the shared processes of the matrix',
  });
  for (const runtime of made) rmSync(runtime, { recursive: true, force: true });
  made.clear();
  runtimes.clear();
}
