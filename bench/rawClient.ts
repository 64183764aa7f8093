/**
 * The one raw JSON-RPC client of every benchmark: spawns a target (no shell), writes
 * newline-delimited frames, parses each answer once with `JSON.parse`, and answers the requests
 * the target sends (elicitation, roots, ping) at once. No SDK, so its own cost is small and the
 * same for every target.
 *
 * Writes are batched: frames queued while handling one chunk of the target's stdout go out in one
 * `write`, so the client never adds a system call per frame.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

export type Frame = Record<string, unknown>;
type Id = string | number;

/** What the client answers to a request of the target. */
export const ELICIT_CONTENT = { name: 'bench' };
const CLIENT_ANSWERS: Record<string, unknown> = {
  'elicitation/create': { action: 'accept', content: ELICIT_CONTENT },
  'roots/list': { roots: [] },
  ping: {},
};

export interface SpawnOptions {
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Where the target's stderr goes: dropped by default. */
  readonly stderr?: 'ignore' | 'inherit' | 'pipe';
}

export interface RawClient {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Queues one line (without '\n'); it is written with the others at the end of the turn. */
  send(line: string): void;
  /** Sends a request line and calls `done` with its answer. */
  call(id: Id, line: string, done: (frame: Frame) => void): void;
  /** Sends a request line; resolves with its answer, or rejects after `timeoutMs`. */
  request(id: Id, line: string, timeoutMs?: number): Promise<Frame>;
  /** Requests of the target answered so far (elicitation rounds). */
  readonly served: number;
  /** Notifications received so far. */
  readonly notifications: number;
  /** Resolves with the exit code when the process has exited. */
  readonly exited: Promise<number | null>;
  /** Ends stdin, waits up to `graceMs` for the exit, then kills the process group. */
  close(graceMs?: number): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export function spawnClient(options: SpawnOptions): RawClient {
  const child = spawn(options.cmd, [...options.args], {
    stdio: ['pipe', 'pipe', options.stderr ?? 'ignore'],
    env: options.env ?? process.env,
    detached: true,
  });
  if (child.pid === undefined) throw new Error(`cannot start ${options.cmd}`);
  const pid = child.pid;
  const stdin = child.stdin!;
  const stdout = child.stdout!;
  const pending = new Map<Id, (frame: Frame) => void>();
  let queue: string[] = [];
  let scheduled = false;
  let served = 0;
  let notifications = 0;
  let parts: Buffer[] = [];

  const flush = (): void => {
    scheduled = false;
    if (queue.length === 0 || stdin.destroyed) return;
    const text = queue.length === 1 ? `${queue[0]}\n` : `${queue.join('\n')}\n`;
    queue = [];
    stdin.write(text);
  };
  const send = (line: string): void => {
    queue.push(line);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };

  const onLine = (line: string): void => {
    if (line.length === 0) return;
    let frame: Frame;
    try {
      frame = JSON.parse(line) as Frame;
    } catch {
      return;
    }
    const id = frame['id'];
    const method = frame['method'];
    if (typeof method === 'string') {
      if (id === undefined) {
        notifications++;
        return;
      }
      served++;
      const answer = CLIENT_ANSWERS[method];
      const reply =
        answer === undefined
          ? { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }
          : { jsonrpc: '2.0', id, result: answer };
      send(JSON.stringify(reply));
      return;
    }
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const done = pending.get(id);
    if (done === undefined) return;
    pending.delete(id);
    done(frame);
  };

  stdout.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (parts.length > 0) {
        parts.push(chunk.subarray(start, nl));
        const whole = Buffer.concat(parts);
        parts = [];
        onLine(whole.toString('utf8'));
      } else {
        onLine(chunk.toString('utf8', start, nl));
      }
      start = nl + 1;
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
    // Answers to the target go out in the same turn, so a round trip does not wait for the next tick.
    if (queue.length > 0) flush();
  });
  stdin.on('error', () => undefined);

  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      const failure: Frame = { error: { code: -1, message: 'the target exited' } };
      for (const done of pending.values()) done(failure);
      pending.clear();
      resolve(code);
    });
  });

  const call = (id: Id, line: string, done: (frame: Frame) => void): void => {
    pending.set(id, done);
    send(line);
  };

  return {
    pid,
    child,
    send,
    call,
    request: (id, line, timeoutMs = DEFAULT_TIMEOUT_MS) =>
      new Promise<Frame>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`no answer to request ${String(id)} in ${timeoutMs} ms`));
        }, timeoutMs);
        call(id, line, (frame) => {
          clearTimeout(timer);
          resolve(frame);
        });
      }),
    get served() {
      return served;
    },
    get notifications() {
      return notifications;
    },
    exited,
    close: async (graceMs = 2_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      flush();
      stdin.end();
      const timer = setTimeout(() => killGroup(pid), graceMs);
      await exited;
      clearTimeout(timer);
      killGroup(pid); // whatever the target started (the bridge's upstream) goes too
    },
  };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
