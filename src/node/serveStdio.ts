/**
 * The whole executable's behaviour for a product's own stdio server: stdin and stdout wired to
 * the bridge of a profile, the upstream started or reached on `initialize` (or a child started
 * before, issue 13), back-pressure, the watchdog after the end of stdin, and the exit code
 * (reference-behaviors.md §2.13, §8). Node only.
 */
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { Subject, defer, firstValueFrom, map, takeUntil, tap } from 'rxjs';
import type { Observable, OperatorFunction } from 'rxjs';
import { decodeLines } from '../../operators/decodeLines.js';
import { encodeFrames } from '../../operators/encodeFrames.js';
import { DEFAULT_LIMITS } from '../bridge/config.js';
import type { BridgeLimits } from '../bridge/config.js';
import type { ConsentRelay } from '../bridge/consent.js';
import type { Logger } from '../bridge/log.js';
import { createRpcConnection } from '../bridge/rpcConnection.js';
import type { UpstreamAuth } from '../bridge/signInPorts.js';
import type { UpstreamConnection } from '../bridge/upstream.js';
import { exitLines, stdoutErrorLine } from './exitReport.js';
import { createStderrLogger } from './log.js';
import { fallbackServerName } from '../codec/initializeResult.js';
import { killGroup, spawnChildUpstream } from '../edges/childProcess.js';
import { CHILD_STOP_GRACE_MS, stopUpstreamChild } from '../edges/childStart.js';
import type { UpstreamChild } from '../edges/childStart.js';
import { createFlowControl } from '../edges/flowControl.js';
import type { FlowControl } from '../edges/flowControl.js';
import { responseBodies } from '../edges/bodyGate.js';
import { readChunks, writeLines } from '../edges/stdio.js';
import { createProfileBridge } from '../profiles/bridge.js';
import type { Profile } from '../profiles/profile.js';
import type { Frame } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';

/** The upstream: a child process started per `initialize`, or a Streamable HTTP endpoint. */
export type StdioUpstream =
  | {
      readonly kind: 'command';
      readonly argv: readonly string[];
      /**
       * The child of `argv` started already (startUpstreamChild), so that its start overlaps the
       * loading of the caller (issue 13): the first `initialize` adopts it, a retry after a failed
       * one starts a new child. Never adopted (the client ends before `initialize`), it is stopped
       * when serveStdio ends. A child of another argv is stopped at once and not adopted.
       */
      readonly prestarted?: UpstreamChild;
    }
  | {
      readonly kind: 'url';
      readonly url: string;
      /** Static headers sent with every request; their values are never logged. */
      readonly headers?: readonly { readonly name: string; readonly value: string }[];
      /** Extra trusted CA certificates (PEM). */
      readonly caPem?: string;
    };

/** Settings of serveStdio. */
export interface ServeStdioOptions {
  /** The bridge's version, the fallback `serverInfo.version`. Default: this package's version. */
  readonly version?: string;
  /** `serverInfo.name` when the upstream gives none. Default: command basename, URL host, profile name. */
  readonly name?: string;
  /** Default: lines `<profile name>: <scope>: <level>: <text>` on stderr from level `info`. */
  readonly logger?: Logger;
  /** Limits of the bridge; missing ones take DEFAULT_LIMITS. */
  readonly limits?: Partial<BridgeLimits>;
  /** Longest line from the client or a child upstream, in bytes. Default 64 MiB. */
  readonly maxLineBytes?: number;
  /** Largest HTTP response body, in bytes. Default 64 MiB. */
  readonly maxResponseBytes?: number;
  /** After the end of stdin, how long the bridge may take to stop, in ms. Default 8000 (§2.13). */
  readonly watchdogMs?: number;
  /**
   * Wraps the bridge in operators of the product's own (an allow-list, a tracing tap): gets the
   * bridge, returns the chain from decoded client lines to client frames. Default: the bridge.
   */
  readonly compose?: (bridge: OperatorFunction<Inbound, Frame>) => OperatorFunction<Inbound, Frame>;
  /** Warnings logged at start (e.g. from the product's own option checks). */
  readonly warnings?: readonly string[];
  /** Default process.stdin and process.stdout. */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** The environment of the HTTP edge (proxy variables). Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The sign-in of a URL upstream (reference-behaviors.md §6.4, §6.7), set up by the caller (token
   * store, authorization server) and released by it after serveStdio resolved: the HTTP upstream
   * asks `auth` for its Authorization header, each client connection binds `consent`, and a
   * completed sign-in (`auth.signedIn$`) reopens the listen stream. Absent: no sign-in.
   */
  readonly signIn?: { readonly auth: UpstreamAuth; readonly consent: ConsentRelay };
  /**
   * The scope of serveStdio's own log lines (the start warnings, the watchdog, a failed stdout);
   * default `bridge`. `mcp-bridge-vscode` logs them under `vscode` (reference-behaviors.md §2.13).
   */
  readonly scope?: string;
}

/** reference-behaviors.md §2.13: the watchdog after the end of stdin. */
export const DEFAULT_WATCHDOG_MS = 8_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

function packageVersion(): string {
  const text = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : '0.0.0';
}

interface ChildTracker {
  pid: number | undefined;
  exited: Promise<unknown> | undefined;
  /** A prestarted child that no `initialize` has adopted yet. */
  prestarted: UpstreamChild | undefined;
}

const sameArgv = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((arg, i) => arg === b[i]);

interface Wiring {
  readonly upstream: StdioUpstream;
  readonly logger: Logger;
  readonly child: ChildTracker;
  readonly flow: FlowControl;
  readonly maxLineBytes: number;
  readonly maxResponseBytes: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly auth: UpstreamAuth | undefined;
}

function connector(w: Wiring): () => Observable<UpstreamConnection> {
  const upstream = w.upstream;
  if (upstream.kind === 'url') {
    // The response bodies pause with stdin while the client does not read (bodyGate.ts).
    w.flow.add(responseBodies);
    // Loaded for a URL only: the HTTP edge and undici take 150 ms or more of every start-up.
    return () =>
      defer(() => import('../edges/http/httpUpstream.js')).pipe(
        map(({ createHttpUpstream }) =>
          createHttpUpstream(
            {
              url: upstream.url,
              headers: (upstream.headers ?? []).map(({ name, value }) => ({ name, value })),
              maxResponseBytes: w.maxResponseBytes,
              ...(upstream.caPem === undefined ? {} : { caPem: upstream.caPem }),
              env: w.env,
              ...(w.auth === undefined ? {} : { auth: w.auth }),
            },
            w.logger,
          ),
        ),
      );
  }
  return () => {
    // Only the first initialize adopts the prestarted child; a retry starts a new one (§2.1).
    const prestarted = w.child.prestarted;
    w.child.prestarted = undefined;
    return spawnChildUpstream(
      {
        argv: upstream.argv,
        maxLineBytes: w.maxLineBytes,
        stopGraceMs: CHILD_STOP_GRACE_MS,
        ...(prestarted === undefined ? {} : { child: prestarted }),
      },
      w.logger,
    ).pipe(
      map((transport) => {
        w.child.pid = transport.pid;
        w.child.exited = firstValueFrom(transport.exit$, { defaultValue: undefined });
        w.flow.add(transport);
        return createRpcConnection(transport, w.logger);
      }),
    );
  };
}

/**
 * Serves one MCP 2025-11-25 client on stdio from a 2026-07-28 upstream, as `mcp-bridge-vscode`
 * does, and resolves with the exit code (reference-behaviors.md §8): 0 after the end of stdin (or
 * SIGTERM/SIGINT, or the watchdog), 1 when the upstream stopped or the bridge failed. The caller
 * exits with it; no `process.exit` happens here.
 *
 * @example
 * import { genericProfile } from 'mcp-bridge-sdk';
 * import { serveStdio } from 'mcp-bridge-sdk/node';
 * const code = await serveStdio(genericProfile, { kind: 'command', argv: ['node', 'server.js'] });
 * process.exit(code);
 */
export async function serveStdio(
  profile: Profile,
  upstream: StdioUpstream,
  options: ServeStdioOptions = {},
): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const logger = options.logger ?? createStderrLogger('info', undefined, profile.name);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_BYTES;
  const watchdogMs = options.watchdogMs ?? DEFAULT_WATCHDOG_MS;
  const scope = options.scope ?? 'bridge';
  const signIn = options.signIn;
  for (const warning of options.warnings ?? []) logger.log(scope, 'warn', warning);
  const child: ChildTracker = { pid: undefined, exited: undefined, prestarted: undefined };
  // Stopped when serveStdio ends if no initialize adopted it; a child of other arguments at once.
  const prestarted = upstream.kind === 'command' ? upstream.prestarted : undefined;
  let stopPrestarted: Promise<void> | undefined;
  if (prestarted !== undefined && upstream.kind === 'command') {
    if (sameArgv(prestarted.argv, upstream.argv)) child.prestarted = prestarted;
    else stopPrestarted = stopUpstreamChild(prestarted, CHILD_STOP_GRACE_MS);
  }
  // A client that does not read stdout stops the reading of stdin and of the upstream.
  const flow = createFlowControl(stdout, [stdin]);
  const fallbackName = fallbackServerName({
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(upstream.kind === 'command' ? { command: upstream.argv[0] ?? '' } : { url: upstream.url }),
    profileName: profile.name,
  });
  const wiring: Wiring = {
    upstream,
    logger,
    child,
    flow,
    maxLineBytes,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_BYTES,
    env: options.env ?? process.env,
    auth: signIn?.auth,
  };
  const profileBridge = createProfileBridge(
    profile,
    {
      version: options.version ?? packageVersion(),
      fallbackName,
      limits: { ...DEFAULT_LIMITS, ...options.limits },
    },
    {
      connect: connector(wiring),
      logger,
      ...(signIn === undefined ? {} : { consent: signIn.consent, signIn$: signIn.auth.signedIn$ }),
    },
  );
  const bridge = options.compose === undefined ? profileBridge : options.compose(profileBridge);

  const stop$ = new Subject<void>();
  const onSignal = (): void => stop$.next();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  // EPIPE: the client went away, stdin's end follows; any other write error is logged (issue 10 item 3).
  const onStdoutError = (error: unknown): void => {
    const line = stdoutErrorLine(error);
    if (line !== undefined) logger.log(scope, line.level, line.text);
  };
  stdout.on('error', onStdoutError);

  let watchdog: NodeJS.Timeout | undefined;
  let watchdogFired = false;
  let resolveCode: (code: number) => void = () => undefined;
  const armWatchdog = (): void => {
    watchdog ??= setTimeout(() => {
      watchdogFired = true;
      logger.log(
        scope,
        'warn',
        `the bridge did not stop in ${watchdogMs / 1000} s after the end of stdin, thus it stops now`,
      );
      killGroup(child.pid);
      killGroup(child.prestarted?.pid);
      resolveCode(0);
    }, watchdogMs);
    watchdog.unref();
  };
  const stopSubscription = stop$.subscribe(armWatchdog);

  const chunks$ = readChunks(stdin).pipe(takeUntil(stop$));
  const inbound$ = chunks$.pipe(tap({ complete: armWatchdog }), decodeLines({ maxLineBytes }));
  const code = await new Promise<number>((resolve) => {
    resolveCode = resolve;
    inbound$
      .pipe(
        bridge,
        encodeFrames({ rawResults: true }),
        tap(() => flow.check()),
        writeLines(stdout),
      )
      .subscribe({
        complete: () => resolve(0),
        error: (error: unknown) => {
          for (const line of exitLines(error, logger.enabled('debug')))
            logger.log('bridge', line.level, line.text);
          resolve(1);
        },
      });
  });
  // Give the child a bounded time to exit after its stdin closed (the edge escalates to signals);
  // after the watchdog, the process tree is killed already and the caller exits at once (§2.13).
  if (child.exited !== undefined && !watchdogFired) {
    await Promise.race([
      child.exited,
      new Promise((done) => setTimeout(done, 3 * CHILD_STOP_GRACE_MS).unref()),
    ]);
  }
  // A prestarted child that no initialize adopted is stopped like any child (issue 13).
  if (child.prestarted !== undefined && !watchdogFired) {
    stopPrestarted = stopUpstreamChild(child.prestarted, CHILD_STOP_GRACE_MS);
  }
  if (stopPrestarted !== undefined) await stopPrestarted;
  if (watchdog !== undefined) clearTimeout(watchdog);
  stopSubscription.unsubscribe();
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  stdout.off('error', onStdoutError);
  return code;
}
