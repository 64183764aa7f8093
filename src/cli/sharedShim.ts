/**
 * The shim (docs/shared.md): with `--shared` or `MCP_BRIDGE_SHARED=1`, the process a client starts
 * joins the per-user shared bridge over its local socket, starting it when none answers, and passes
 * the client's lines and the bridge's frames, stderr lines and exit code through the records of
 * src/edges/sharedSocket/records.ts. Node built-ins and the error table only: no RxJS, no codec,
 * no sign-in (main.ts loads this before anything else).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { sharedPath, sharedSecretDir } from '../edges/sharedSocket/listen.js';
import {
  createRecordReader,
  inputRecords,
  record,
  TO_SHARED,
  TO_SHIM,
} from '../edges/sharedSocket/records.js';
import type { SharedHello } from '../edges/sharedSocket/records.js';
import { readSharedSecret } from '../edges/sharedSocket/secret.js';
import type { SecretRead } from '../edges/sharedSocket/secret.js';
import { createLineTracker } from './sharedTracker.js';

/** How long the shim tries to reach a shared process it started (a loaded machine starts Node slowly). */
export const CONNECT_BOUND_MS = 20_000;
/** Exit code of a lost shared process: the stdio bridge's for a lost upstream (docs/lifecycle.md#lifecycle-upstream-loss). */
export const LOST_CODE = 1;

export interface ShimInput {
  /** The command line without the shared options. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The executable's file, which the shared process runs as `shared daemon`. */
  readonly entry: string;
  /** The executable's profile name, the first word of its stderr lines. */
  readonly program: string;
  readonly graceMs?: number;
  readonly idleSeconds?: number;
}

const diagnostic = (program: string, text: string): string => `${program}: bridge: error: ${text}\n`;

/** Starts the shared process, detached, its stderr in `daemon.log` of the socket's directory. */
function startDaemon(input: ShimInput, dir: string | undefined): void {
  let log: number | 'ignore' = 'ignore';
  try {
    if (dir !== undefined) log = openSync(join(dir, 'daemon.log'), 'a', 0o600);
  } catch {
    // No log: the shared process runs anyway.
  }
  const idle = input.idleSeconds === undefined ? [] : ['--shared-idle', String(input.idleSeconds)];
  const child = spawn(process.execPath, [input.entry, 'shared', 'daemon', ...idle], {
    detached: true,
    stdio: ['ignore', 'ignore', log],
    // Not the client's directory: the shared process outlives it.
    cwd: dir ?? '/',
    env: { ...input.env, MCP_BRIDGE_SHARED: '' },
    windowsHide: true,
  });
  child.on('error', () => undefined);
  child.unref();
  if (typeof log === 'number') closeSync(log);
}

function tryConnect(path: string): Promise<Socket | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const onError = (error: NodeJS.ErrnoException): void => resolve(error);
    socket.once('error', onError);
    socket.once('connect', () => {
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

/** Where the shim goes: the socket's path, the socket's directory, the secret's directory. */
interface Where {
  readonly path: string;
  readonly dir: string | undefined;
  readonly secretDir: string;
  readonly uid: number;
}

/** A connection and the secret of the shared process it reached. */
interface Reached {
  readonly socket: Socket;
  readonly secret: string;
}

/**
 * Connects and reads the shared process's secret (docs/shared.md#shared-secret), starting the
 * shared process when nothing answers; retries with backoff. A secret not there yet (the shared
 * process is starting, or stopping) is waited for, the connection closed meanwhile; a secret file
 * that fails the checks is refused.
 */
async function reach(where: Where, input: ShimInput): Promise<Reached | string> {
  const { path, dir } = where;
  const deadline = Date.now() + CONNECT_BOUND_MS;
  let started = 0;
  let wait = 20;
  const refused = (read: SecretRead): string | undefined =>
    read.kind === 'refused' ? `${read.refusal.message} (${read.refusal.code})` : undefined;
  for (;;) {
    // A planted file is refused before anything is started (it would refuse the shared process too).
    const planted = refused(readSharedSecret(where.secretDir, where.uid));
    if (planted !== undefined) return planted;
    const outcome = await tryConnect(path);
    if (!(outcome instanceof Error)) {
      // Read once connected: the secret of the process that answered.
      const read = readSharedSecret(where.secretDir, where.uid);
      if (read.kind === 'secret') return { socket: outcome, secret: read.secret };
      outcome.destroy();
      const problem = refused(read);
      if (problem !== undefined) return problem;
    } else if (outcome.code !== 'ENOENT' && outcome.code !== 'ECONNREFUSED') {
      return `cannot connect to the shared bridge at ${path}: ${outcome.message}`;
    } else if (started === 0 || (started === 1 && Date.now() > deadline - CONNECT_BOUND_MS / 2)) {
      // Once at first, then again if the first start died (its log says why).
      started += 1;
      startDaemon(input, dir);
    }
    if (Date.now() > deadline) return `the shared bridge did not start in ${CONNECT_BOUND_MS / 1000} s`;
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 250);
  }
}

/** Runs the shim to its end: exits the process with the session's code. */
export async function runShim(input: ShimInput): Promise<void> {
  const state: { connected?: Socket; signalled: boolean } = { signalled: false };
  const onSignal = (signal: NodeJS.Signals): void => {
    const socket = state.connected;
    if (socket === undefined || state.signalled) {
      // A repeated signal (or one before the session): the shim ends now, as the stdio bridge does.
      socket?.destroy();
      process.exit(socket === undefined && !state.signalled ? 0 : signal === 'SIGINT' ? 130 : 143);
    }
    state.signalled = true;
    socket.write(record(TO_SHARED.signal, signal));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const uid = process.getuid?.() ?? 0;
  const where = sharedPath({ env: input.env, uid });
  if (!where.ok) {
    process.stderr.write(diagnostic(input.program, `${where.refusal.message} (${where.refusal.code})`));
    process.exit(LOST_CODE);
  }
  const dir = process.platform === 'win32' ? undefined : join(where.path, '..');
  const secretDir = sharedSecretDir({ env: input.env, uid });
  const reached = await reach({ path: where.path, dir, secretDir, uid }, input);
  if (typeof reached === 'string') {
    process.stderr.write(diagnostic(input.program, reached));
    process.exit(LOST_CODE);
  }
  const socket = reached.socket;
  state.connected = socket;
  socket.on('error', () => undefined);
  const hello: SharedHello = {
    v: 1,
    kind: 'session',
    profile: input.program,
    argv: input.argv,
    cwd: process.cwd(),
    env: input.env,
    ...(input.graceMs === undefined ? {} : { graceMs: input.graceMs }),
    secret: reached.secret,
  };
  socket.write(record(TO_SHARED.hello, JSON.stringify(hello)));
  pipeSession(socket, input.program);
}

function pipeSession(socket: Socket, program: string): void {
  const tracker = createLineTracker();
  const stdin = process.stdin;
  const stdout = process.stdout;
  stdout.on('error', () => undefined);
  // The records of one chunk, and the pieces of the frames of one chunk, go out in one write
  // each (bench/README.md, "Shared bridge"): corked while the chunk is read.
  stdin.on('data', (chunk: Buffer) => {
    socket.cork();
    for (const out of inputRecords(chunk)) {
      // Tracking sees the payload: the record without its kind byte and newline.
      tracker.fromClient(out.subarray(1, out.length - 1), out[0] === TO_SHARED.line);
      socket.write(out);
    }
    socket.uncork();
  });
  const endInput = (): void => {
    if (!socket.destroyed) socket.write(record(TO_SHARED.closed));
  };
  stdin.once('end', endInput);
  stdin.once('error', endInput);

  let code: number | undefined;
  let stderrLine: Buffer[] = [];
  let exitText = '';
  const toStdout = (bytes: Uint8Array): void => {
    if (!stdout.write(bytes)) {
      socket.pause();
      stdout.once('drain', () => socket.resume());
    }
  };
  const read = createRecordReader({
    piece: (kind, piece) => {
      if (kind === TO_SHIM.frame) {
        toStdout(Buffer.from(piece));
        tracker.toClient(piece, false);
      } else if (kind === TO_SHIM.stderr) stderrLine.push(Buffer.from(piece));
      else if (kind === TO_SHIM.exit) exitText += piece.toString('latin1');
      else if (kind === TO_SHIM.answer) toStdout(Buffer.from(piece));
    },
    end: (kind) => {
      if (kind === TO_SHIM.frame || kind === TO_SHIM.answer) {
        toStdout(Buffer.from('\n'));
        if (kind === TO_SHIM.frame) tracker.toClient(new Uint8Array(0), true);
      } else if (kind === TO_SHIM.stderr) {
        stderrLine.push(Buffer.from('\n'));
        process.stderr.write(Buffer.concat(stderrLine));
        stderrLine = [];
      } else if (kind === TO_SHIM.exit) {
        const parsed = Number(exitText);
        code = Number.isInteger(parsed) && parsed >= 0 && parsed < 256 ? parsed : LOST_CODE;
      }
    },
  });
  socket.on('data', (chunk: Buffer) => {
    stdout.cork();
    read(chunk);
    stdout.uncork();
  });
  socket.once('close', () => {
    if (code !== undefined) {
      const done = code;
      stdout.write('', () => process.exit(done));
      return;
    }
    // The shared process is gone: as the stdio bridge reports the loss of its upstream.
    for (const line of tracker.lossLines()) stdout.write(line);
    process.stderr.write(diagnostic(program, 'the shared bridge process stopped (upstream_exited)'));
    stdout.write('', () => process.exit(LOST_CODE));
  });
}
