/**
 * The shared bridge as a library piece (docs/shared.md#shared-library): the connections of the
 * shims and of `shared status` / `shared stop`, and the host's idle time. The roles are in files
 * of their own: the connection's records (sharedConnection.ts), a session on the upstream of its
 * key (sharedAttach.ts), the upstreams per key and their grace (sharedTable.ts). How a hello
 * becomes a session (the command line, the profile) is the caller's `resolve` (sharedPlan.ts).
 */
import type { Socket } from 'node:net';
import { record, TO_SHIM } from '../edges/sharedSocket/records.js';
import type { SharedHello } from '../edges/sharedSocket/records.js';
import { secretMatches } from '../edges/sharedSocket/secret.js';
import type { Logger } from '../ports/logger.js';
import { attachSession } from './sharedAttach.js';
import { finish, readConnection } from './sharedConnection.js';
import type { EarlyInput } from './sharedConnection.js';
import { keyPrefix } from './sharedKey.js';
import type { SharedPlan } from './sharedPlan.js';
import { createUpstreamTable } from './sharedTable.js';

/** What a host needs from its caller: how a hello becomes a session, and its idle time. */
export interface SharedHostOptions {
  readonly resolve: (hello: SharedHello) => Promise<SharedPlan>;
  /** The host had no session for this long: `onIdle` is called. */
  readonly idleMs: number;
  readonly onIdle: () => void;
  /** A control hello `stop`. */
  readonly onStop: () => void;
  /** The host's own log (not a session's): never an environment value or header. */
  readonly logger: Logger;
  /**
   * The secret every hello must carry (docs/shared.md#shared-secret): the one `listenShared`
   * writes for the shims. Never logged.
   */
  readonly secret: string;
}

/** What `shared status` shows (docs/shared.md#shared-status). */
export interface SharedStatus {
  readonly pid: number;
  readonly uptimeMs: number;
  readonly rssBytes: number;
  readonly sessions: number;
  readonly upstreams: readonly {
    readonly key: string;
    readonly summary: string;
    readonly sessions: number;
    readonly uptimeMs: number;
  }[];
}

/** A running host: what the listening socket hands connections to. */
export interface SharedHost {
  /** Serves one connection of a shim (or of `shared status` / `shared stop`). */
  readonly accept: (socket: Socket) => void;
  readonly status: () => SharedStatus;
  /** Ends every session's connection and stops every upstream. */
  readonly close: () => Promise<void>;
}

/**
 * The sessions and upstreams of the shared bridge (docs/shared.md#shared-library); the caller binds
 * the socket (listenShared) and hands each connection to `accept`.
 */
export function createSharedHost(options: SharedHostOptions): SharedHost {
  const started = Date.now();
  const table = createUpstreamTable();
  const sockets = new Set<Socket>();
  let idle: NodeJS.Timeout | undefined;
  /** Idle: no connection open (a session being set up counts as one), for `idleMs`. */
  const armIdle = (): void => {
    if (sockets.size > 0) return;
    if (idle !== undefined) clearTimeout(idle);
    idle = setTimeout(options.onIdle, options.idleMs);
  };
  armIdle();

  const onHello = async (socket: Socket, hello: SharedHello, input: EarlyInput): Promise<void> => {
    if (!secretMatches(hello.secret, options.secret)) {
      refuseHello(socket, hello, options.logger);
      return;
    }
    if (hello.kind === 'status') {
      socket.write(record(TO_SHIM.answer, JSON.stringify(status())));
      finish(socket, 0);
      return;
    }
    if (hello.kind === 'stop') {
      finish(socket, 0);
      options.onStop();
      return;
    }
    let plan: SharedPlan;
    try {
      plan = await options.resolve(hello);
    } catch (error) {
      options.logger.log('shared', 'err', `a session could not be set up: ${(error as Error).message}`);
      finish(socket, 1);
      return;
    }
    if (plan.kind === 'refuse') {
      for (const line of plan.lines) socket.write(record(TO_SHIM.stderr, line));
      finish(socket, plan.code);
      return;
    }
    await attachSession(socket, plan, input, table, options.logger);
  };

  const status = (): SharedStatus => {
    const entries = table.list();
    return {
      pid: process.pid,
      uptimeMs: Date.now() - started,
      rssBytes: process.memoryUsage.rss(),
      // A session counts on its upstream from its join to its end.
      sessions: entries.reduce((sum, entry) => sum + entry.sessions, 0),
      upstreams: entries.map((entry) => ({
        key: keyPrefix(entry.key),
        summary: entry.summary,
        sessions: entry.sessions,
        uptimeMs: Date.now() - entry.started,
      })),
    };
  };

  return {
    accept: (socket) => {
      sockets.add(socket);
      if (idle !== undefined) clearTimeout(idle);
      socket.once('close', () => {
        sockets.delete(socket);
        armIdle();
      });
      socket.on('error', () => undefined);
      readConnection(socket, (hello, input) => void onHello(socket, hello, input));
    },
    status,
    close: async () => {
      if (idle !== undefined) clearTimeout(idle);
      for (const socket of sockets) socket.destroy();
      await table.closeAll();
    },
  };
}

/**
 * A hello without the secret (docs/shared.md#shared-secret): one error line to the connection, a
 * line in the host's log (never the value), exit code 1, and the connection ends.
 */
function refuseHello(socket: Socket, hello: SharedHello, logger: Logger): void {
  const why = hello.secret === undefined ? 'no secret' : 'a wrong secret';
  logger.log('shared', 'warn', `refused a connection: its hello carried ${why}`);
  socket.write(
    record(
      TO_SHIM.stderr,
      `mcp-bridge: shared: error: the shared bridge refused this connection: its hello carried ${why} (shared_secret_refused)`,
    ),
  );
  finish(socket, 1);
}
