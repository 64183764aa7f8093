/**
 * The upstream child process (docs/upstream.md#upstream-transports): argv after `--` unchanged, no shell,
 * the bridge's environment and stderr inherited, its own process group so that a stop reaches
 * every process it started. On Windows, `.cmd`/`.bat` launchers go through cmd.exe with escaped
 * arguments and a stop ends the tree with `taskkill` (processPlan.ts). The spawn itself and the
 * stop signals are in childStart.ts, which has no RxJS so that the executable can start its
 * upstream before it loads the rest; this edge adopts such a child.
 */
import { AsyncSubject, Observable, Subject, share } from 'rxjs';
import { frameLine } from '../codec/requestText.js';
import { BridgeError } from '../protocol/bridgeError.js';
import type { Frame } from '../protocol/jsonrpc.js';
import type { LineTransport } from '../ports/lineTransport.js';
import type { Logger } from '../ports/logger.js';
import { decodeLines } from '../../operators/decodeLines.js';
import { startUpstreamChild } from './childStart.js';
import type { ChildExit, UpstreamChild } from './childStart.js';
import type { Pausable } from './flowControl.js';
import { readChunks, writeLines } from './stdio.js';

export { killGroup } from './childStart.js';

/**
 * Nesting limit of upstream frames. Far above the 64 levels of client lines: an upstream tool
 * schema deeper than that must still list (docs/results.md#results-items-fix, docs/testing.md#testing-negative); bounded so
 * that a hostile upstream cannot exhaust the stack of the recursive walks over a result.
 */
export const UPSTREAM_MAX_DEPTH = 1024;

/** Settings of spawnChildUpstream. */
export interface ChildUpstreamConfig {
  readonly argv: readonly string[];
  readonly maxLineBytes: number;
  /** After stdin is closed, how long the child may take to exit before SIGTERM, then SIGKILL. */
  readonly stopGraceMs: number;
  /**
   * A child started already (startUpstreamChild, e.g. before the bridge's modules loaded, so that
   * the upstream's start overlaps the bridge's): adopted instead of starting `argv`, with its start, exit and output so far.
   */
  readonly child?: UpstreamChild;
}

/**
 * Starts the child (or adopts `config.child`), emits its line transport once the process runs and
 * completes; errors with `spawn_failed` when it cannot start (ENOENT, EACCES, …). From then on the
 * transport's `close()` stops the child. An unsubscription before that (an `initialize` cancelled
 * right after the spawn) stops the child as `close()` would: its stdin ends, then its process
 * group gets SIGTERM and SIGKILL.
 */
export function spawnChildUpstream(
  config: ChildUpstreamConfig,
  logger: Logger,
): Observable<LineTransport & Pausable & { readonly pid: number | undefined }> {
  return new Observable((subscriber) => {
    let child = config.child;
    if (child === undefined) {
      const [command, ...args] = config.argv;
      if (command === undefined) {
        subscriber.error(new BridgeError('spawn_failed', { detail: 'no command' }));
        return undefined;
      }
      child = startUpstreamChild([command, ...args]);
    }
    const started = child;
    // Replayed: an adopted child may have exited before anyone listened.
    const exit$ = new AsyncSubject<ChildExit>();
    const out$ = new Subject<string>();
    let exited = false;
    let emitted = false;

    started.onExit((exit) => {
      exited = true;
      exit$.next(exit);
      exit$.complete();
    });
    // Lives until close() completes out$ (not tied to this subscription: callers may take(1)).
    // stdin ends after the last queued frame was handed to it, so that the cancellations written
    // at a stop still reach the child. A child whose stdin fails (it closed it, EPIPE) and that
    // does not exit can take no request any more: it is stopped, and its exit ends the connection
    // (upstream_exited) instead of every later request waiting for its deadline.
    out$.pipe(writeLines(started.stdin, { failure: 'error' })).subscribe({
      complete: () => started.stdin.end(),
      error: (error: unknown) => {
        // Most often the child is exiting (EPIPE as it dies): its exit then tells the reason.
        // One that still runs after the grace closed its stdin and is stopped, with this line.
        const code = (error as { code?: unknown } | undefined)?.code;
        setTimeout(() => {
          if (exited) return;
          logger.log(
            'bridge',
            'err',
            `writing to the upstream command failed (${typeof code === 'string' ? code : 'closed'}); the bridge stops it`,
          );
          started.escalate(config.stopGraceMs);
        }, config.stopGraceMs).unref();
      },
    });

    started.onStart((outcome) => {
      if (!outcome.ok) {
        const error = outcome.error;
        logger.log('bridge', 'err', `cannot start the upstream command: ${error.code ?? error.message}`);
        subscriber.error(
          new BridgeError('spawn_failed', { detail: error.code ?? 'spawn error', cause: error }),
        );
        return;
      }
      const stdout = started.takeStdout();
      emitted = true;
      subscriber.next({
        pid: started.pid,
        inbound$: readChunks(stdout).pipe(
          decodeLines({ maxLineBytes: config.maxLineBytes, maxDepth: UPSTREAM_MAX_DEPTH }),
          share(),
        ),
        send: (frame: Frame) => out$.next(frameLine(frame)),
        exit$: exit$.asObservable(),
        // Back-pressure: the child's writes wait while the client does not read (flowControl.ts).
        pause: () => void stdout.pause(),
        resume: () => void stdout.resume(),
        close: () => {
          if (exited) return;
          out$.complete();
          started.escalate(config.stopGraceMs);
        },
      });
      subscriber.complete();
    });
    return () => {
      // Nobody got the transport, so nobody would ever close this child.
      if (emitted || exited) return;
      out$.complete();
      started.escalate(config.stopGraceMs);
    };
  });
}
