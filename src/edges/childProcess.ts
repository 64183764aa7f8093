/**
 * The upstream child process (reference-behaviors.md §3.1): argv after `--` unchanged, no shell,
 * the bridge's environment and stderr inherited, its own process group so that a stop reaches
 * every process it started. On Windows, `.cmd`/`.bat` launchers go through cmd.exe with escaped
 * arguments and a stop ends the tree with `taskkill` (processPlan.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { Observable, Subject, share } from 'rxjs';
import { BridgeError } from '../errors.js';
import type { Frame } from '../protocol/jsonrpc.js';
import type { LineTransport } from '../bridge/rpcConnection.js';
import type { Logger } from '../bridge/log.js';
import { decodeLines } from '../../operators/decodeLines.js';
import type { Pausable } from './flowControl.js';
import { treeKillPlan, upstreamSpawnPlan } from './processPlan.js';
import { readChunks, writeLines } from './stdio.js';

/**
 * Nesting limit of upstream frames. Far above the 64 levels of client lines: an upstream tool
 * schema deeper than that must still list (reference-behaviors.md §3.8, §9.6 item 7); bounded so
 * that a hostile upstream cannot exhaust the stack of the recursive walks over a result.
 */
export const UPSTREAM_MAX_DEPTH = 1024;

/** Settings of spawnChildUpstream. */
export interface ChildUpstreamConfig {
  readonly argv: readonly string[];
  readonly maxLineBytes: number;
  /** After stdin is closed, how long the child may take to exit before SIGTERM, then SIGKILL. */
  readonly stopGraceMs: number;
}

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
 * Starts the child and emits its line transport once the process runs; errors with
 * `spawn_failed` when it cannot start (ENOENT, EACCES, …).
 */
export function spawnChildUpstream(
  config: ChildUpstreamConfig,
  logger: Logger,
): Observable<LineTransport & Pausable & { readonly pid: number | undefined }> {
  return new Observable((subscriber) => {
    const [command, ...args] = config.argv;
    if (command === undefined) {
      subscriber.error(new BridgeError('spawn_failed', { detail: 'no command' }));
      return undefined;
    }
    const plan = upstreamSpawnPlan([command, ...args], process.platform, process.env, isFile);
    const child = spawn(plan.file, plan.args, {
      stdio: ['pipe', 'pipe', 'inherit'],
      detached: plan.detached,
      windowsHide: true,
      windowsVerbatimArguments: plan.windowsVerbatimArguments,
    });
    const exit$ = new Subject<{ code: number | null; signal: string | null }>();
    const out$ = new Subject<string>();
    const timers: NodeJS.Timeout[] = [];
    let exited = false;

    child.once('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) {
        logger.log('bridge', 'err', `cannot start the upstream command: ${error.code ?? error.message}`);
        subscriber.error(
          new BridgeError('spawn_failed', { detail: error.code ?? 'spawn error', cause: error }),
        );
      }
    });
    child.stdin.on('error', () => undefined); // EPIPE after the child exited: the exit path reports it.
    child.once('exit', (code, signal) => {
      exited = true;
      for (const t of timers) clearTimeout(t);
      exit$.next({ code, signal });
      exit$.complete();
    });
    // Lives until close() completes out$ (not tied to this subscription: callers may take(1)).
    // stdin ends after the last queued frame was handed to it, so that the cancellations written
    // at a stop still reach the child.
    out$.pipe(writeLines(child.stdin)).subscribe({ complete: () => child.stdin.end() });

    child.once('spawn', () => {
      subscriber.next({
        pid: child.pid,
        inbound$: readChunks(child.stdout).pipe(
          decodeLines({ maxLineBytes: config.maxLineBytes, maxDepth: UPSTREAM_MAX_DEPTH }),
          share(),
        ),
        send: (frame: Frame) => out$.next(`${JSON.stringify(frame)}\n`),
        exit$: exit$.asObservable(),
        // Back-pressure: the child's writes wait while the client does not read (flowControl.ts).
        pause: () => void child.stdout.pause(),
        resume: () => void child.stdout.resume(),
        close: () => {
          if (exited) return;
          out$.complete();
          // A server should exit at the end of its stdin; if it does not, stop it (style of VS Code's stop).
          timers.push(setTimeout(() => signalGroup(child, 'SIGTERM'), config.stopGraceMs));
          timers.push(setTimeout(() => signalGroup(child, 'SIGKILL'), config.stopGraceMs * 2));
        },
      });
    });
    return undefined;
  });
}
