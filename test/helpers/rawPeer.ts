/**
 * A child process spoken to in raw newline-delimited JSON, for tests that must see the exact bytes
 * on the wire (no SDK in between). Every peer is tracked so that `killAllPeers()` in an `afterEach`
 * leaves no child behind, whatever the test did.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { seaCommand } from './seaSwap.js';
import { rememberShim, sharedPlan } from './sharedMatrix.js';
import { WAIT_BOUND_MS } from './waitFor.js';

/** A parsed stdout line. JSON-RPC frames are objects, but a misbehaving peer may send anything. */
export type Frame = Record<string, unknown>;

export interface PeerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RawPeer {
  /** Writes one frame as a JSON line (a string is written as the line itself). */
  send(frame: unknown): void;
  /** Resolves with the first frame not yet taken that matches, waiting up to `timeoutMs`. */
  nextFrame(predicate?: (frame: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  /** Resolves with the first stdout line not yet taken that matches, waiting up to `timeoutMs`. */
  nextLine(predicate?: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Every stdout line so far, in order. */
  readonly lines: readonly string[];
  /** Every stderr line so far, in order. */
  readonly stderr: readonly string[];
  /** Resolves when the process has exited. */
  readonly exit: Promise<PeerExit>;
  /** Resolves when stdout has ended (the peer closed it, or exited). */
  readonly stdoutClosed: Promise<void>;
  /** Ends stdin, as a client does when it goes away. */
  closeStdin(): void;
  /** Kills the process (SIGKILL) if it still runs. */
  kill(): void;
  readonly child: ChildProcess;
}

// Generous: a timeout only costs time when a test fails, and a loaded CI machine is slow to start Node.
const DEFAULT_TIMEOUT_MS = WAIT_BOUND_MS;
const live = new Set<RawPeer>();

/** Spawns `cmd args` with piped stdio. */
export function spawnPeer(cmd: string, args: readonly string[], env?: NodeJS.ProcessEnv): RawPeer {
  // The `--shared` run of the matrix starts a stdio bridge as a shim (sharedMatrix.ts).
  const plan = sharedPlan(cmd, args, env);
  const command = seaCommand(plan.cmd, plan.args);
  const child = spawn(command.cmd, command.args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: plan.env ?? process.env,
  });
  rememberShim(child.pid, plan.runtime);
  const lines: string[] = [];
  const stderr: string[] = [];
  const takenLines = new Set<number>();
  const waiters = new Set<() => void>();
  const wake = (): void => waiters.forEach((w) => w());

  // A write after the child died raises EPIPE on the stream; the exit promise reports the death.
  child.stdin.on('error', () => undefined);
  let stdoutEnded = false;
  const stdoutLines = createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    wake();
  });
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  // readline closes after it has emitted the last line, so every line is in `lines` by then.
  const stdoutClosed = new Promise<void>((resolve) =>
    stdoutLines.once('close', () => {
      stdoutEnded = true;
      resolve();
      wake();
    }),
  );
  const exit = new Promise<PeerExit>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(peer);
      resolve({ code, signal });
    });
  });

  /**
   * Takes the first line not yet taken that matches. Each waiter scans every line once (a line
   * that did not match never will), so a flood of lines costs linear time.
   */
  function takeLine(predicate: (line: string) => boolean, timeoutMs: number, what: string): Promise<string> {
    let scanned = 0;
    return new Promise<string>((resolve, reject) => {
      const check = (): void => {
        for (; scanned < lines.length; scanned++) {
          const line = lines[scanned]!;
          if (takenLines.has(scanned) || !predicate(line)) continue;
          takenLines.add(scanned);
          done();
          resolve(line);
          return;
        }
        if (stdoutEnded) fail(`stdout ended without a ${what}`);
      };
      const fail = (reason: string): void => {
        done();
        const tail = lines.slice(-5).join('\n  ');
        reject(new Error(`${reason}; last lines:\n  ${tail}\nstderr:\n  ${stderr.join('\n  ')}`));
      };
      const timer = setTimeout(() => fail(`no ${what} in ${timeoutMs} ms`), timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  }

  const peer: RawPeer = {
    send(frame) {
      child.stdin.write(`${typeof frame === 'string' ? frame : JSON.stringify(frame)}\n`);
    },
    nextFrame(predicate = () => true, timeoutMs = DEFAULT_TIMEOUT_MS) {
      const matches = (line: string): boolean => {
        const frame = parseFrame(line);
        return frame !== undefined && predicate(frame);
      };
      return takeLine(matches, timeoutMs, 'matching frame').then((line) => parseFrame(line)!);
    },
    nextLine(predicate = () => true, timeoutMs = DEFAULT_TIMEOUT_MS) {
      return takeLine(predicate, timeoutMs, 'matching line');
    },
    lines,
    stderr,
    exit,
    stdoutClosed,
    closeStdin: () => child.stdin.end(),
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    child,
  };
  live.add(peer);
  return peer;
}

/** Kills every peer that still runs and waits until each has exited. For `afterEach`. */
export async function killAllPeers(): Promise<void> {
  const peers = [...live];
  peers.forEach((peer) => peer.kill());
  await Promise.all(peers.map((peer) => peer.exit));
}

/** Parses a line into an object frame; anything else (garbage, arrays, scalars) gives undefined. */
export function parseFrame(line: string): Frame | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Frame)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A predicate for the response to request `id`. */
export const responseTo =
  (id: unknown) =>
  (frame: Frame): boolean =>
    frame.id === id && ('result' in frame || 'error' in frame);

/** A predicate for a notification with `method`. */
export const notification =
  (method: string) =>
  (frame: Frame): boolean =>
    frame.method === method && !('id' in frame);

/** The `_meta` that every 2026-07-28 request must carry; spread your own keys over it. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-peer', version: '0.0.0' },
};

let lastRequestId = 0;

/** A 2026-07-28 request with a fresh numeric id and `params._meta` = MODERN_META + `meta`. */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
): { jsonrpc: '2.0'; id: number; method: string; params: Record<string, unknown> } {
  return {
    jsonrpc: '2.0',
    id: ++lastRequestId,
    method,
    params: { ...params, _meta: { ...MODERN_META, ...meta } },
  };
}

/** Sends a request frame and resolves with its response. */
export function exchange(
  peer: RawPeer,
  frame: { id: unknown; [key: string]: unknown },
  timeoutMs?: number,
): Promise<Frame> {
  peer.send(frame);
  return peer.nextFrame(responseTo(frame.id), timeoutMs);
}
