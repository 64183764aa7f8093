/**
 * The shared bridge as a library piece (docs/shared.md#shared-library): the sessions of the shims
 * that connect over the local socket, one upstream per sharing key (sharedUpstream.ts, as `serve`
 * shares one), and the lifecycle of both (docs/shared.md#shared-lifecycle): an upstream stops its
 * grace after its last session ended, and the host reports idle after a while without sessions.
 * How a hello becomes a session (the command line, the profile) is the caller's `resolve`.
 */
import type { Socket } from 'node:net';
import { Observable, Subject } from 'rxjs';
import type { Subscriber } from 'rxjs';
import { createRecordReader, record, TO_SHARED, TO_SHIM } from '../edges/sharedSocket/records.js';
import type { SharedHello } from '../edges/sharedSocket/records.js';
import type { FlowControl } from '../edges/flowControl.js';
import type { Logger, LogLevel } from '../ports/logger.js';
import type { ConsentRelay, UpstreamAuth } from '../ports/signIn.js';
import { createStderrLogger } from './log.js';
import { runSharedSession } from './sharedSession.js';
import type { SharedSessionSettings } from './sharedSession.js';
import { sharedUpstream } from './sharedUpstream.js';
import { createUpstreamConnector } from './upstreamConnector.js';
import type { StdioUpstream } from './upstreamConnector.js';

/** A hello's first record may be this long (the environment is in it); longer ends the connection. */
export const MAX_HELLO_BYTES = 1024 * 1024;
/**
 * Output a shim may leave unread when the next frame comes; beyond, its session ends (the upstream
 * is shared: it cannot wait).
 */
export const MAX_UNREAD_BYTES = 16 * 1024 * 1024;
/** Input held while the session is being set up. */
const MAX_EARLY_INPUT_BYTES = 16 * 1024 * 1024;

/** The sign-in of a URL upstream, set up once per key (as `serve` does for all its sessions). */
export type SharedSignIn =
  | {
      readonly ok: true;
      readonly auth: UpstreamAuth;
      readonly consent: ConsentRelay;
      readonly close: () => void;
    }
  | { readonly ok: false; readonly message: string };

/** What the caller made of a hello. */
export type SharedPlan =
  | {
      readonly kind: 'session';
      /** sha256 hex of the sharing key (src/node/sharedKey.ts); only its prefix is ever shown. */
      readonly key: string;
      /** The command's name or the URL's origin: no secret. */
      readonly summary: string;
      readonly upstream: StdioUpstream;
      readonly env: Readonly<Record<string, string | undefined>>;
      readonly maxLineBytes: number;
      readonly maxResponseBytes: number;
      /** How long the upstream stays after its last session ended. */
      readonly graceMs: number;
      readonly logLevel: LogLevel;
      readonly program: string;
      /** Lines logged at the start of the session (the command line's warnings). */
      readonly warnings: readonly string[];
      readonly session: Omit<SharedSessionSettings, 'connect' | 'logger' | 'signIn'>;
      /**
       * Set up with the upstream of the key, once; its sign-in line goes to `writeSignInLine`,
       * which writes it to the stderr of every session on the key.
       */
      readonly signIn?: (writeSignInLine: (line: string) => void) => Promise<SharedSignIn>;
    }
  /** Not a session: these stderr lines, then this exit code (invalid arguments: 2). */
  | { readonly kind: 'refuse'; readonly lines: readonly string[]; readonly code: number };

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
}

/** One upstream of a key and the sessions on it. */
interface Entry {
  readonly key: string;
  readonly summary: string;
  readonly started: number;
  readonly shared: ReturnType<typeof sharedUpstream>;
  readonly settle: () => Promise<void>;
  readonly loggers: Set<Logger>;
  /** Writes one raw line to a session's stderr, per session on the key: the sign-in line. */
  readonly stderr: Set<(line: string) => void>;
  readonly signIn: SharedSignIn | undefined;
  sessions: number;
  grace: NodeJS.Timeout | undefined;
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

/** No back-pressure across sessions: the upstream is shared; each session has MAX_UNREAD_BYTES. */
const NO_FLOW: FlowControl = { check: () => undefined, add: () => () => undefined, paused: false };

/** The prefix of a key hash that status and the joined line show. */
export const keyPrefix = (key: string): string => key.slice(0, 12);

/**
 * The sessions and upstreams of the shared bridge (docs/shared.md#shared-library); the caller binds
 * the socket (listenShared) and hands each connection to `accept`.
 */
export function createSharedHost(options: SharedHostOptions): SharedHost {
  const started = Date.now();
  const entries = new Map<string, Entry | Promise<Entry>>();
  const sockets = new Set<Socket>();
  let sessions = 0;
  let idle: NodeJS.Timeout | undefined;
  /** Idle: no connection open (a session being set up counts as one), for `idleMs`. */
  const armIdle = (): void => {
    if (sockets.size > 0) return;
    if (idle !== undefined) clearTimeout(idle);
    idle = setTimeout(options.onIdle, options.idleMs);
  };
  armIdle();

  /** A logger of the key: upstream lines go to every session on that upstream. */
  const fanOut = (loggers: Set<Logger>): Logger => ({
    enabled: (level) => [...loggers].some((logger) => logger.enabled(level)),
    log: (scope, level, text) => {
      for (const logger of loggers) logger.log(scope, level, text);
    },
  });

  const entryFor = async (plan: SharedPlan & { kind: 'session' }): Promise<Entry> => {
    const known = entries.get(plan.key);
    if (known !== undefined) return known;
    const making = (async (): Promise<Entry> => {
      const stderr = new Set<(line: string) => void>();
      const toSessions = (line: string): void => stderr.forEach((write) => write(line));
      const signIn = plan.signIn === undefined ? undefined : await plan.signIn(toSessions);
      const loggers = new Set<Logger>();
      const logger = fanOut(loggers);
      const connector = createUpstreamConnector({
        upstream: plan.upstream,
        logger,
        flow: NO_FLOW,
        maxLineBytes: plan.maxLineBytes,
        maxResponseBytes: plan.maxResponseBytes,
        env: plan.env,
        auth: signIn?.ok === true ? signIn.auth : undefined,
      });
      const entry: Entry = {
        key: plan.key,
        summary: plan.summary,
        started: Date.now(),
        shared: sharedUpstream(connector.connect, logger),
        settle: () => connector.settle(false),
        loggers,
        stderr,
        signIn,
        sessions: 0,
        grace: undefined,
      };
      return entry;
    })();
    entries.set(plan.key, making);
    return making.then(
      (entry) => {
        if (entries.get(plan.key) === making) entries.set(plan.key, entry);
        return entry;
      },
      (error: unknown) => {
        if (entries.get(plan.key) === making) entries.delete(plan.key);
        throw error;
      },
    );
  };

  const stopEntry = async (entry: Entry): Promise<void> => {
    if (entries.get(entry.key) === entry) entries.delete(entry.key);
    entry.shared.close();
    await entry.settle();
    if (entry.signIn?.ok === true) entry.signIn.close();
  };

  /**
   * A session left its upstream. Without a grace the last one stops it at once and the shim
   * exits after that stop, as the stdio bridge exits after its child's
   * (docs/shared.md#shared-lifecycle).
   */
  const release = async (entry: Entry, graceMs: number): Promise<void> => {
    entry.sessions -= 1;
    if (entry.sessions > 0) return;
    if (graceMs === 0) return stopEntry(entry);
    entry.grace = setTimeout(() => void stopEntry(entry), graceMs);
  };

  const serveSession = async (
    socket: Socket,
    plan: SharedPlan & { kind: 'session' },
    input: EarlyInput,
  ): Promise<void> => {
    const write = writer(socket);
    const logger = createStderrLogger(
      plan.logLevel,
      (line) => write(`${String.fromCharCode(TO_SHIM.stderr)}${line}`),
      plan.program,
    );
    for (const warning of plan.warnings) logger.log(plan.session.scope, 'warn', warning);
    let entry: Entry;
    try {
      entry = await entryFor(plan);
    } catch (error) {
      options.logger.log('shared', 'err', `an upstream could not be set up: ${(error as Error).message}`);
      finish(socket, 1);
      return;
    }
    if (entry.signIn?.ok === false) {
      logger.log(plan.session.scope, 'err', entry.signIn.message);
      if (entries.get(entry.key) === entry) entries.delete(entry.key);
      finish(socket, 2);
      return;
    }
    if (socket.destroyed) return;
    if (entry.grace !== undefined) clearTimeout(entry.grace);
    entry.grace = undefined;
    entry.sessions += 1;
    entry.loggers.add(logger);
    // The sign-in line, as the stdio bridge writes it to its own stderr (docs/shared.md#shared-signin).
    const stderrLine = (line: string): void => write(`${String.fromCharCode(TO_SHIM.stderr)}${line}\n`);
    entry.stderr.add(stderrLine);
    sessions += 1;
    // At debug: a session without trouble writes no line at the default level, as the stdio
    // bridge; and a client's stderr never names the upstream URL (docs/logging.md#logging-hygiene),
    // not even its origin: `shared status` shows that to the user who asks.
    const joined = plan.upstream.kind === 'url' ? 'url' : entry.summary;
    logger.log('bridge', 'debug', `joined shared bridge ${keyPrefix(entry.key)} (${joined})`);
    const session = runSharedSession(
      {
        input$: input.input$,
        stop$: input.stop$,
        write: (line) => {
          // What the shim left unread before this frame counts, not the frame itself: one frame
          // may be larger than the bound (up to --max-response-bytes), as on the stdio bridge's
          // stdout (docs/shared.md#shared-sessions).
          if (socket.writableLength > MAX_UNREAD_BYTES) {
            socket.destroy();
            return;
          }
          write(String.fromCharCode(TO_SHIM.frame));
          if (typeof line === 'string') write(line);
          else for (const piece of line) write(piece);
        },
      },
      {
        ...plan.session,
        connect: entry.shared.connect,
        logger,
        ...(entry.signIn?.ok === true ? { signIn: entry.signIn } : {}),
      },
    );
    socket.once('close', session.end);
    const code = await session.code;
    socket.off('close', session.end);
    sessions -= 1;
    await release(entry, plan.graceMs);
    entry.loggers.delete(logger);
    entry.stderr.delete(stderrLine);
    finish(socket, code);
  };

  const accept = (socket: Socket): void => {
    sockets.add(socket);
    if (idle !== undefined) clearTimeout(idle);
    socket.once('close', () => {
      sockets.delete(socket);
      armIdle();
    });
    socket.on('error', () => undefined);
    const input = earlyInput(socket);
    let hello: Buffer[] | undefined = [];
    let helloBytes = 0;
    const read = createRecordReader({
      piece: (kind, piece) => {
        if (hello !== undefined) {
          helloBytes += piece.length;
          if (kind !== TO_SHARED.hello || helloBytes > MAX_HELLO_BYTES) socket.destroy();
          else hello.push(Buffer.from(piece));
          return;
        }
        input.piece(kind, piece);
      },
      end: (kind) => {
        if (hello === undefined) {
          input.end(kind);
          return;
        }
        const text = Buffer.concat(hello).toString('utf8');
        hello = undefined;
        const parsed = parseHello(text);
        if (parsed === undefined) {
          socket.destroy();
          return;
        }
        void onHello(socket, parsed, input);
      },
    });
    socket.on('data', read);
  };

  const onHello = async (socket: Socket, hello: SharedHello, input: EarlyInput): Promise<void> => {
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
    await serveSession(socket, plan, input);
  };

  const status = (): SharedStatus => ({
    pid: process.pid,
    uptimeMs: Date.now() - started,
    rssBytes: process.memoryUsage.rss(),
    sessions,
    upstreams: [...entries.values()]
      .filter((entry): entry is Entry => !(entry instanceof Promise))
      .map((entry) => ({
        key: keyPrefix(entry.key),
        summary: entry.summary,
        sessions: entry.sessions,
        uptimeMs: Date.now() - entry.started,
      })),
  });

  return {
    accept,
    status,
    close: async () => {
      if (idle !== undefined) clearTimeout(idle);
      for (const socket of sockets) socket.destroy();
      const all = await Promise.all([...entries.values()]);
      await Promise.all(
        all.map((entry) => {
          if (entry.grace !== undefined) clearTimeout(entry.grace);
          return stopEntry(entry);
        }),
      );
    },
  };
}

/** Writes to the socket, corked for one turn so that the lines of a turn share a write. */
function writer(socket: Socket): (data: string | Uint8Array) => void {
  let corked = false;
  return (data) => {
    if (socket.destroyed) return;
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    socket.write(data);
  };
}

/** The exit record, then the end of the connection. */
function finish(socket: Socket, code: number): void {
  if (socket.destroyed) return;
  socket.end(record(TO_SHIM.exit, String(code)));
}

/** The client's input, held from the hello until the session subscribes. */
interface EarlyInput {
  readonly input$: Observable<Uint8Array>;
  readonly stop$: Observable<void>;
  readonly piece: (kind: number, piece: Buffer) => void;
  readonly end: (kind: number) => void;
}

function earlyInput(socket: Socket): EarlyInput {
  let held: Uint8Array[] | undefined = [];
  let heldBytes = 0;
  let closed = false;
  let sink: Subscriber<Uint8Array> | undefined;
  const stop$ = new Subject<void>();
  const NEWLINE = Buffer.from('\n');
  const push = (bytes: Uint8Array): void => {
    if (sink !== undefined) {
      sink.next(bytes);
      return;
    }
    heldBytes += bytes.length;
    if (heldBytes > MAX_EARLY_INPUT_BYTES) socket.destroy();
    else held?.push(bytes);
  };
  return {
    input$: new Observable<Uint8Array>((subscriber) => {
      for (const bytes of held ?? []) subscriber.next(bytes);
      held = undefined;
      if (closed) subscriber.complete();
      else sink = subscriber;
      return () => {
        sink = undefined;
      };
    }),
    stop$,
    piece: (kind, piece) => {
      // Copied: the reader's view of the chunk is valid only during the call.
      if (kind === TO_SHARED.line || kind === TO_SHARED.piece) push(Buffer.from(piece));
    },
    end: (kind) => {
      if (kind === TO_SHARED.line) push(NEWLINE);
      else if (kind === TO_SHARED.closed) {
        closed = true;
        sink?.complete();
      } else if (kind === TO_SHARED.signal) stop$.next();
    },
  };
}

/** A hello, or undefined for one that is not valid (the connection then ends). */
export function parseHello(text: string): SharedHello | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const hello = value as Record<string, unknown>;
  const kinds = ['session', 'status', 'stop'];
  if (hello['v'] !== 1 || typeof hello['kind'] !== 'string' || !kinds.includes(hello['kind']))
    return undefined;
  if (typeof hello['profile'] !== 'string' || typeof hello['cwd'] !== 'string') return undefined;
  const argv = hello['argv'];
  if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) return undefined;
  const env = hello['env'];
  if (typeof env !== 'object' || env === null || Array.isArray(env)) return undefined;
  if (!Object.values(env).every((v) => typeof v === 'string')) return undefined;
  const grace = hello['graceMs'];
  if (grace !== undefined && (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0))
    return undefined;
  return value as SharedHello;
}
