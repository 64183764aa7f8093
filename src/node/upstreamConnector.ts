/**
 * The upstream of serveStdio: connected on each `initialize` (docs/lifecycle.md#lifecycle-initialize step 4),
 * a child started per `initialize` or one started before and adopted by the first, or
 * the HTTP edge loaded on first use; then the watchdog's kill and the bounded wait for the child
 * at the end (docs/lifecycle.md#lifecycle-end-of-input). Node only.
 */
import { defer, map } from 'rxjs';
import type { Observable } from 'rxjs';
import type { Logger } from '../ports/logger.js';
import { createRpcConnection } from '../bridge/rpcConnection.js';
import type { UpstreamAuth } from '../ports/signIn.js';
import type { UpstreamConnection } from '../ports/upstream.js';
import { killGroup, spawnChildUpstream } from '../edges/childProcess.js';
import {
  CHILD_STOP_GRACE_MS,
  sameArgv,
  startUpstreamChild,
  stopUpstreamChild,
  terminateGroup,
} from '../edges/childStart.js';
import type { UpstreamChild } from '../edges/childStart.js';
import type { FlowControl } from '../edges/flowControl.js';

/** The upstream: a child process started per `initialize`, or a Streamable HTTP endpoint. */
export type StdioUpstream =
  | {
      readonly kind: 'command';
      readonly argv: readonly string[];
      /**
       * The child of `argv` started already (startUpstreamChild), so that its start overlaps the
       * loading of the caller: the first `initialize` adopts it, a retry after a failed
       * one starts a new child. Never adopted (the client ends before `initialize`), it is stopped
       * when serveStdio ends. A child of another argv is stopped at once and not adopted.
       */
      readonly prestarted?: UpstreamChild;
      /** The child's working directory (the shared bridge's client's, docs/shared.md). Default this process's. */
      readonly cwd?: string;
    }
  | {
      readonly kind: 'url';
      readonly url: string;
      /** Static headers sent with every request; their values are never logged. */
      readonly headers?: readonly { readonly name: string; readonly value: string }[];
      /** Extra trusted CA certificates (PEM). */
      readonly caPem?: string;
    };

/** What the connector needs from serveStdio. */
export interface ConnectorSettings {
  readonly upstream: StdioUpstream;
  readonly logger: Logger;
  /** A child's stdout and the HTTP response bodies pause with stdin (back-pressure). */
  readonly flow: FlowControl;
  readonly maxLineBytes: number;
  readonly maxResponseBytes: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly auth: UpstreamAuth | undefined;
}

/** The upstream side of one serveStdio. */
export interface UpstreamConnector {
  /** Connects the upstream; the bridge calls it on each `initialize`. */
  readonly connect: () => Observable<UpstreamConnection>;
  /**
   * Starts the command's child now, for the next `connect` to adopt, unless a child of this
   * connector runs or waits already (nothing for a URL): the shared bridge's start at a shim's
   * hello, as the executable's before `initialize` (docs/shared.md#shared-lifecycle).
   */
  readonly prestart: () => void;
  /** The watchdog (docs/lifecycle.md#lifecycle-end-of-input): kills the process groups of the child and of a prestarted one. */
  readonly kill: () => void;
  /** A signal to the bridge: SIGTERM to the process groups of the child and of a prestarted one. */
  readonly terminate: () => void;
  /**
   * After the bridge ended: waits a bounded time for the child to exit and stops a prestarted
   * child that no `initialize` adopted, unless the watchdog killed them already.
   */
  readonly settle: (watchdogFired: boolean) => Promise<void>;
}

function httpConnect(upstream: StdioUpstream & { kind: 'url' }, s: ConnectorSettings) {
  // Loaded for a URL only: the HTTP edge and undici take 150 ms or more of every start-up.
  return (): Observable<UpstreamConnection> =>
    defer(() => import('../edges/http/httpUpstream.js')).pipe(
      map(({ createHttpUpstream }) =>
        createHttpUpstream(
          {
            url: upstream.url,
            headers: (upstream.headers ?? []).map(({ name, value }) => ({ name, value })),
            maxResponseBytes: s.maxResponseBytes,
            ...(upstream.caPem === undefined ? {} : { caPem: upstream.caPem }),
            env: s.env,
            ...(s.auth === undefined ? {} : { auth: s.auth }),
            // The response bodies of each connection pause with stdin while the client does not
            // read (bodyGate.ts); the connection adds its gate and removes it when it closes.
            flow: s.flow,
          },
          s.logger,
        ),
      ),
    );
}

export function createUpstreamConnector(s: ConnectorSettings): UpstreamConnector {
  const upstream = s.upstream;
  /** A prestarted child that no `initialize` has adopted yet. */
  let prestarted: UpstreamChild | undefined;
  // Stopped when serveStdio ends if no initialize adopted it; a child of other arguments at once.
  let stopPrestarted: Promise<void> | undefined;
  if (upstream.kind === 'command' && upstream.prestarted !== undefined) {
    if (sameArgv(upstream.prestarted.argv, upstream.argv)) prestarted = upstream.prestarted;
    else stopPrestarted = stopUpstreamChild(upstream.prestarted, CHILD_STOP_GRACE_MS);
  }

  /**
   * The children that `initialize` started or adopted and that still run, each known from its
   * start (before its spawn event), until its exit or failed start.
   */
  const running = new Map<UpstreamChild, Promise<void>>();
  /**
   * Their process groups, kept after the exit of the child: the watchdog and the end of a stop by
   * a signal kill what is left in them (a process the child started).
   */
  const groups = new Set<number>();
  const track = (child: UpstreamChild): void => {
    if (child.pid !== undefined) groups.add(child.pid);
    running.set(
      child,
      new Promise<void>((done) => {
        const gone = (): void => {
          running.delete(child);
          done();
        };
        child.onExit(gone);
        child.onStart((outcome) => {
          if (!outcome.ok) gone();
        });
      }),
    );
  };

  const connect =
    upstream.kind === 'url'
      ? httpConnect(upstream, s)
      : () =>
          defer(() => {
            // Only the first initialize adopts the prestarted child; a retry starts a new one (docs/lifecycle.md#lifecycle-states).
            const [command, ...args] = upstream.argv;
            const child =
              prestarted ??
              (command === undefined
                ? undefined
                : startUpstreamChild([command, ...args], { ...s.env }, upstream.cwd));
            prestarted = undefined;
            // Tracked at once: the watchdog, a signal and the wait at the end reach it even when the
            // initialize that started it is cancelled before its spawn event.
            if (child !== undefined) track(child);
            return spawnChildUpstream(
              {
                argv: upstream.argv,
                maxLineBytes: s.maxLineBytes,
                stopGraceMs: CHILD_STOP_GRACE_MS,
                ...(child === undefined ? {} : { child }),
              },
              s.logger,
            ).pipe(
              map((transport) => {
                // Out of the flow control once it exited: a retried initialize's new child replaces it.
                const remove = s.flow.add(transport);
                child?.onExit(() => remove());
                return createRpcConnection(transport, s.logger);
              }),
            );
          });

  return {
    connect,
    prestart: () => {
      if (upstream.kind !== 'command' || prestarted !== undefined || running.size > 0) return;
      const [command, ...args] = upstream.argv;
      if (command !== undefined)
        prestarted = startUpstreamChild([command, ...args], { ...s.env }, upstream.cwd);
    },
    kill: () => {
      for (const pid of groups) killGroup(pid);
      killGroup(prestarted?.pid);
    },
    terminate: () => {
      for (const pid of groups) terminateGroup(pid);
      terminateGroup(prestarted?.pid);
    },
    settle: async (watchdogFired) => {
      // Give the child a bounded time to exit after its stdin closed (the edge escalates to
      // signals); after the watchdog, the process tree is killed already and the caller exits at
      // once (docs/lifecycle.md#lifecycle-end-of-input).
      if (running.size > 0 && !watchdogFired) {
        await Promise.race([
          Promise.all(running.values()),
          new Promise((done) => setTimeout(done, 3 * CHILD_STOP_GRACE_MS).unref()),
        ]);
      }
      // A prestarted child that no initialize adopted is stopped like any child.
      if (prestarted !== undefined && !watchdogFired) {
        stopPrestarted = stopUpstreamChild(prestarted, CHILD_STOP_GRACE_MS);
      }
      if (stopPrestarted !== undefined) await stopPrestarted;
    },
  };
}
