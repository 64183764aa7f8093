/**
 * `mcp-bridge shared daemon|status|stop` (docs/shared.md#shared-status): the shared process that
 * the shims start (sharedShim.ts), built from the library's host (src/node/sharedHost.ts), and its
 * two diagnostics. A hello becomes a session by the executable's own parse of the command line,
 * with the shim's environment, so a shim behaves as the stdio bridge with the same arguments.
 */
import { connect } from 'node:net';
import { listenShared, sharedPath, sharedSecretDir } from '../edges/sharedSocket/listen.js';
import { createRecordReader, record, TO_SHARED, TO_SHIM } from '../edges/sharedSocket/records.js';
import type { SharedHello } from '../edges/sharedSocket/records.js';
import { newSharedSecret, readSharedSecret } from '../edges/sharedSocket/secret.js';
import { createStderrLogger, formatDiagnostic } from '../node/log.js';
import { createSharedHost } from '../node/sharedHost.js';
import type { SharedStatus } from '../node/sharedHost.js';
import type { SocketPlaceRefusal } from '../edges/sharedSocket/socketPlace.js';
import type { Profile } from '../profiles/profile.js';
import { planOf } from './sharedPlanOf.js';

/** docs/shared.md#shared-lifecycle: the shared process ends after this long without a session. */
export const DEFAULT_IDLE_SECONDS = 300;

/** `shared --help`. */
export const sharedHelpText = (program: string): string => `Usage: ${program} shared status
       ${program} shared stop

The shared bridge (docs/shared.md): with --shared, or MCP_BRIDGE_SHARED=1 in the environment,
the stdio forms of ${program} join one bridge process of this user over a local socket
($XDG_RUNTIME_DIR/mcp-bridge/, else /run/user/<uid>/mcp-bridge/, else /tmp/mcp-bridge-<uid>/) instead of starting their own
upstream; entries with the same command, directory and environment share one upstream.
  --shared-grace <s>     how long an upstream stays after its last session (default 30)
  --shared-idle <s>      how long the shared process stays without a session (default 300)
  status                 prints the shared process and its upstreams (key hash prefix, command
                         name or URL origin, sessions, uptime, memory); exit 1 when none runs
  stop                   ends the shared process and its upstreams
The shims start the shared process as "${program} shared daemon" (internal).`;

/** `shared daemon [--shared-idle <s>]`: serves until idle or stopped, then exits 0. */
async function runDaemon(argv: readonly string[], profile: Profile): Promise<number> {
  const at = argv.indexOf('--shared-idle');
  const idleText = at === -1 ? undefined : argv[at + 1];
  const idleSeconds = idleText === undefined ? DEFAULT_IDLE_SECONDS : Number(idleText);
  if (!Number.isInteger(idleSeconds) || idleSeconds < 0) {
    process.stderr.write(
      `${formatDiagnostic(`--shared-idle needs whole seconds`, profile.name, profile.logScope)}\n`,
    );
    return 2;
  }
  // The shared process's own log (daemon.log beside the socket): no environment value, no header.
  const logger = createStderrLogger('info', undefined, profile.name);
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let stopping = false;
  const bound: { listening?: { readonly server: { close: () => unknown }; readonly close: () => void } } = {};
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    logger.log('shared', 'info', `the shared bridge stops: ${why}`);
    bound.listening?.server.close();
    bound.listening?.close();
    void host.close().then(() => finish(0));
  };
  // docs/shared.md#shared-secret: fresh for each shared process, written once it is bound.
  const secret = newSharedSecret();
  const host = createSharedHost({
    resolve: (hello) => Promise.resolve(planOf(hello)),
    idleMs: idleSeconds * 1000,
    onIdle: () => stop(`no session for ${String(idleSeconds)} s`),
    onStop: () => stop('shared stop'),
    logger,
    secret,
  });
  const outcome = await listenShared({ env: process.env, uid: process.getuid?.() ?? 0 }, host.accept, secret);
  if (outcome.kind === 'refused') {
    process.stderr.write(
      `${formatDiagnostic(`${outcome.refusal.message} (${outcome.refusal.code})`, profile.name, profile.logScope)}\n`,
    );
    await host.close();
    return 1;
  }
  if (outcome.kind === 'taken') {
    // Another shared process won the bind: the shims connect to it (docs/shared.md#shared-socket).
    await host.close();
    return 0;
  }
  bound.listening = outcome;
  logger.log('shared', 'info', `the shared bridge listens (pid ${String(process.pid)})`);
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return finished;
}

/**
 * Sends a control hello, with the secret (docs/shared.md#shared-secret), and resolves with the
 * answer and the exit code; undefined when none runs; a refusal of the place or of the secret file.
 */
function control(
  kind: 'status' | 'stop',
): Promise<{ answer: string; code: number } | undefined | SocketPlaceRefusal> {
  const inputs = { env: process.env, uid: process.getuid?.() ?? 0 };
  const where = sharedPath(inputs);
  if (!where.ok) return Promise.resolve(where.refusal);
  const read = readSharedSecret(sharedSecretDir(inputs), inputs.uid);
  if (read.kind === 'refused') return Promise.resolve(read.refusal);
  if (read.kind === 'absent') return Promise.resolve(undefined);
  const secret = read.secret;
  return new Promise((resolve) => {
    const socket = connect(where.path);
    let answer = '';
    let code = '';
    socket.once('error', () => resolve(undefined));
    socket.once('connect', () => {
      const hello: SharedHello = { v: 1, kind, profile: '', argv: [], cwd: process.cwd(), env: {}, secret };
      socket.write(record(TO_SHARED.hello, JSON.stringify(hello)));
    });
    socket.on(
      'data',
      createRecordReader({
        piece: (recordKind, piece) => {
          if (recordKind === TO_SHIM.answer) answer += piece.toString('utf8');
          else if (recordKind === TO_SHIM.exit) code += piece.toString('latin1');
        },
        end: () => undefined,
      }),
    );
    socket.once('close', () => resolve({ answer, code: Number(code) || 0 }));
  });
}

const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

/** The text of `shared status`. */
export function statusText(status: SharedStatus): string {
  const lines = [
    `shared bridge: pid ${String(status.pid)}, up ${seconds(status.uptimeMs)}, ${String(status.sessions)} sessions, rss ${String(Math.round(status.rssBytes / 1024 / 1024))} MiB`,
  ];
  for (const upstream of status.upstreams) {
    lines.push(
      `  ${upstream.key} ${upstream.summary}: ${String(upstream.sessions)} sessions, up ${seconds(upstream.uptimeMs)}`,
    );
  }
  if (status.upstreams.length === 0) lines.push('  no upstream');
  return lines.join('\n');
}

async function runControl(kind: 'status' | 'stop', profile: Profile): Promise<number> {
  const reply = await control(kind);
  if (reply === undefined || 'message' in reply) {
    const message = reply === undefined ? 'no shared bridge runs' : `${reply.message} (${reply.code})`;
    process.stderr.write(`${formatDiagnostic(message, profile.name, profile.logScope)}\n`);
    return 1;
  }
  if (kind === 'stop') {
    process.stdout.write('the shared bridge stops\n');
    return 0;
  }
  try {
    process.stdout.write(`${statusText(JSON.parse(reply.answer) as SharedStatus)}\n`);
    return 0;
  } catch {
    return 1;
  }
}

/** `shared <daemon|status|stop|--help>`: exits with the code. */
export function runSharedCommand(argv: readonly string[], profile: Profile): void {
  const run = async (): Promise<number> => {
    switch (argv[0]) {
      case 'daemon':
        return runDaemon(argv.slice(1), profile);
      case 'status':
      case 'stop':
        return runControl(argv[0], profile);
      case '--help':
      case '-h':
        process.stdout.write(`${sharedHelpText(profile.name)}\n`);
        return 0;
      default:
        process.stderr.write(
          `${formatDiagnostic(`unknown shared command '${argv[0] ?? ''}'`, profile.name, profile.logScope)}\n${sharedHelpText(profile.name)}\n`,
        );
        return 2;
    }
  };
  void run().then((code) => process.exit(code));
}
