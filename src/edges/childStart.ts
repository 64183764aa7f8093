/**
 * The start and the stop of the upstream child process, with Node built-ins only (no RxJS): the
 * executable starts its upstream before its heavy modules load, so that the child's own start
 * overlaps the bridge's ("Fast start"). spawnChildUpstream (childProcess.ts) adopts such
 * a child on `initialize`, or starts one here.
 *
 * - The spawn of docs/upstream.md#upstream-transports: argv unchanged, no shell, stdio pipe/pipe/inherit,
 *   its own process group (processPlan.ts), Windows launchers through cmd.exe with escaping.
 * - What happens before adoption is kept and replayed: the outcome of the start (a spawn error
 *   such as ENOENT is answered by the first `initialize`, docs/lifecycle.md#lifecycle-initialize step 4) and the exit.
 * - Nothing is read from its stdout before adoption: the output waits in the pipe. Only when the
 *   child exits first is the rest of its output held in memory, since Node would otherwise drain
 *   and drop a stdout that nobody reads at the exit.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import { treeKillPlan, upstreamSpawnPlan } from './processPlan.js';

/** How the child process ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: string | null;
}

/** How the start of the child went: it runs, or it could not start (ENOENT, EACCES, …). */
export type ChildStartOutcome =
  { readonly ok: true } | { readonly ok: false; readonly error: NodeJS.ErrnoException };

/**
 * An upstream child process that was started, before or when the bridge needed it. Give it to
 * serveStdio as `prestarted` of a command upstream (or to spawnChildUpstream as `child`): the
 * first `initialize` adopts it instead of starting the command.
 */
export interface UpstreamChild {
  /** The command and its arguments, as started. */
  readonly argv: readonly string[];
  /** Its process id; undefined while it starts and when it could not start. */
  readonly pid: number | undefined;
  /** Its stdin. */
  readonly stdin: Writable;
  /** Calls back once the start is known (at once when it is known already). */
  onStart(callback: (outcome: ChildStartOutcome) => void): void;
  /** Calls back at its exit (at once when it has exited already). */
  onExit(callback: (exit: ChildExit) => void): void;
  /** Its stdout, with everything it wrote so far; taken once, by the adopter. */
  takeStdout(): Readable;
  /** SIGTERM to its process group after `graceMs`, then SIGKILL after 2 × `graceMs`, unless it exits first. */
  escalate(graceMs: number): void;
}

/** How long a child may take to exit after its stdin closed, before SIGTERM then SIGKILL. */
export const CHILD_STOP_GRACE_MS = 1_000;

const isFile = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;

/** Sends a signal to the child's process group (Windows: ends its tree), falling back to the child alone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const plan = treeKillPlan(child.pid, signal, process.platform, process.env);
  try {
    if (plan.kind === 'signal') process.kill(plan.target, signal);
    else
      spawn(plan.file, plan.args, { stdio: 'ignore', windowsHide: true }).once('error', () =>
        child.kill(signal),
      );
  } catch {
    child.kill(signal);
  }
}

/**
 * After a SIGTERM or SIGINT of the bridge, how long the child's process group has between its
 * SIGTERM and its SIGKILL (README "Command line"). Short on purpose: a client may SIGKILL the
 * bridge soon after its first signal (Claude Code: SIGINT, SIGTERM 100 ms later, SIGKILL 400 ms
 * after that), and the child, in its own process group, must be gone by then.
 */
export const SIGNAL_KILL_MS = 250;

/**
 * The exit code of a bridge that a repeated SIGINT or SIGTERM ended before its stop did: 128 +
 * the signal's number, as a shell reports a process that the signal ended (130, 143).
 */
export const signalExitCode = (signal: NodeJS.Signals): number => (signal === 'SIGINT' ? 130 : 143);

/**
 * Sends SIGTERM to the whole process group of a child right away (a signal to the bridge); on
 * Windows, which has no signals to a group, it ends the tree at once as killGroup does.
 */
export function terminateGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  const plan = treeKillPlan(pid, 'SIGTERM', process.platform, process.env);
  if (plan.kind !== 'signal') {
    killGroup(pid);
    return;
  }
  try {
    process.kill(plan.target, plan.signal);
  } catch {
    // Already gone.
  }
}

/** Kills the whole process group (Windows: tree) of a child right away (the watchdog path). */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  const plan = treeKillPlan(pid, 'SIGKILL', process.platform, process.env);
  try {
    // Synchronous: the watchdog exits right after this call.
    if (plan.kind === 'signal') process.kill(plan.target, plan.signal);
    else spawnSync(plan.file, plan.args, { stdio: 'ignore', windowsHide: true, timeout: 5_000 });
  } catch {
    // Already gone.
  }
}

/**
 * Starts the upstream command `argv` (command first, non-empty) now, in the environment `env`
 * (`serve` leaves its own token out of it, docs/serve.md#serve-security), in `cwd` when given
 * (default this process's). Its start and its exit
 * are kept for whoever adopts it later; a spawn error never throws.
 */
export function startUpstreamChild(
  argv: readonly [string, ...string[]],
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): UpstreamChild {
  const plan = upstreamSpawnPlan(argv, process.platform, env, isFile);
  const child = spawn(plan.file, plan.args, {
    env,
    // The shared bridge starts a child in its client's directory (docs/shared.md#sharing-key).
    ...(cwd === undefined ? {} : { cwd }),
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: plan.detached,
    windowsHide: true,
    windowsVerbatimArguments: plan.windowsVerbatimArguments,
  });
  let outcome: ChildStartOutcome | undefined;
  let exit: ChildExit | undefined;
  const startCallbacks: ((outcome: ChildStartOutcome) => void)[] = [];
  const exitCallbacks: ((exit: ChildExit) => void)[] = [];
  const timers: NodeJS.Timeout[] = [];
  let stdoutTaken = false;
  let held: PassThrough | undefined;

  const settle = (value: ChildStartOutcome): void => {
    if (outcome !== undefined) return;
    outcome = value;
    for (const callback of startCallbacks.splice(0)) callback(value);
  };
  child.once('spawn', () => settle({ ok: true }));
  child.once('error', (error: NodeJS.ErrnoException) => {
    if (child.pid === undefined) settle({ ok: false, error });
  });
  child.stdin.on('error', () => undefined); // EPIPE after the child exited: the exit path reports it.
  child.once('exit', (code, signal) => {
    for (const t of timers) clearTimeout(t);
    // Node drains a stdout that nobody reads right after the exit: keep the rest of it.
    if (!stdoutTaken) {
      held = new PassThrough();
      child.stdout.pipe(held);
    }
    exit = { code, signal };
    for (const callback of exitCallbacks.splice(0)) callback(exit);
  });

  return {
    argv,
    get pid() {
      return child.pid;
    },
    stdin: child.stdin,
    onStart: (callback) => {
      if (outcome === undefined) startCallbacks.push(callback);
      else callback(outcome);
    },
    onExit: (callback) => {
      if (exit === undefined) exitCallbacks.push(callback);
      else callback(exit);
    },
    takeStdout: () => {
      stdoutTaken = true;
      return held ?? child.stdout;
    },
    escalate: (graceMs) => {
      if (exit !== undefined || outcome?.ok === false) return;
      // A server should exit at the end of its stdin; if it does not, stop it (style of VS Code's stop).
      timers.push(setTimeout(() => signalGroup(child, 'SIGTERM'), graceMs));
      timers.push(setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs * 2));
    },
  };
}

/**
 * Stops a child that nobody adopted as any upstream child is stopped: its stdin ends, SIGTERM
 * after `graceMs`, SIGKILL after 2 × `graceMs`. Resolves at its exit (at once when it never
 * started), or after 3 × `graceMs` at the latest.
 */
export function stopUpstreamChild(child: UpstreamChild, graceMs: number): Promise<void> {
  return new Promise<void>((done) => {
    const bound = setTimeout(done, 3 * graceMs);
    bound.unref();
    const finish = (): void => {
      clearTimeout(bound);
      done();
    };
    child.onStart((outcome) => {
      if (!outcome.ok) finish();
    });
    child.onExit(finish);
    child.stdin.end();
    child.escalate(graceMs);
  });
}

/** True when two command lines are the same, argument by argument (a prestarted child serves only its own). */
export const sameArgv = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((arg, i) => arg === b[i]);
