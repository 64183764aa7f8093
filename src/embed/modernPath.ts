/**
 * The modern path of embedded mode (docs/embedded.md#embedded-selection): the client speaks 2026-07-28, and
 * every frame goes to the SDK's `serveStdio` over the in-memory link; the server's frames go to
 * the client unchanged. This file adds only what a stdio server must do around `serveStdio`,
 * which never sees bytes here: the answer to bad lines, the in-flight limit, and the bounded
 * stop at the end of the input.
 */
import type { McpServerFactory } from '@modelcontextprotocol/server';
import {
  concat,
  connect,
  defer,
  endWith,
  filter,
  ignoreElements,
  merge,
  mergeMap,
  of,
  takeUntil,
  tap,
} from 'rxjs';
import type { Observable, OperatorFunction, SchedulerLike } from 'rxjs';
import { limitInFlight } from '../../operators/limitInFlight.js';
import { graceStop } from '../bridge/graceStop.js';
import { takesInFlightPlace } from '../ports/inFlight.js';
import type { Logger } from '../ports/logger.js';
import type { Frame } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';
import { createModernState } from './modernState.js';
import { linkServer } from './serverLink.js';

export interface ModernPathConfig {
  readonly factory: McpServerFactory;
  /** Requests of the client the server may hold at once; above it: -32603 at once (docs/embedded.md#embedded-limits). */
  readonly maxInFlight: number;
  /** After the end of the input, how long requests in flight may go on, in ms (docs/embedded.md#embedded-limits: 2 s). */
  readonly shutdownGraceMs: number;
  readonly logger: Logger;
  readonly scheduler?: SchedulerLike | undefined;
}

/**
 * Serves a 2026-07-28 client with the server of this process.
 *
 * ```text
 * client: -r--x--c---|            r, c requests, x malformed JSON
 * output: ----X--R---C--|         X = -32700 id null; C still ends within the grace
 * ```
 *
 * Rules:
 * 1. every frame reaches the server unchanged and in order, the first one included.
 * 2. malformed JSON and invalid UTF-8 get -32700 with id null, as a stdio server answers them.
 * 3. a line that is not a JSON-RPC message or is too deep gets -32600 with its recovered id.
 * 4. a line above the line limit is dropped with a warning (docs/embedded.md#embedded-selection: zig-sdk drops them too).
 * 5. a request above the in-flight limit gets -32603 `too_many_requests` at once; which requests
 *    count is the bridge's rule (src/ports/inFlight.ts): `ping`, `logging/setLevel`,
 *    `server/discover` and notifications are never refused. The limit is limitInFlight's.
 * 6. at the end of the input the listen streams end at once with their graceful result.
 * 7. requests in flight at the end of the input may finish within the grace; then the
 *    connection closes and the rest are cancelled.
 */
export function serveModern(config: ModernPathConfig): OperatorFunction<Inbound, Frame> {
  const { logger } = config;
  return (inbound$) =>
    defer(() => {
      const state = createModernState(logger);
      const actions$ = concat(
        inbound$.pipe(
          tap({ complete: () => state.releasePlaces() }),
          limitInFlight(
            { maxInFlight: config.maxInFlight, counts: takesInFlightPlace },
            state.decide,
            state.refuse,
          ),
        ),
        defer(() => state.endListens()),
      );
      return actions$.pipe(
        connect((action$) =>
          action$.pipe(
            mergeMap((action) => ('deliver' in action ? [action.deliver] : [])),
            linkServer(config.factory, { onError: (error) => logger.log('embed', 'debug', error.message) }),
            tap(state.track),
            connect((fromServer$) => {
              const idle$: Observable<unknown> = defer(() =>
                state.pending === 0 ? of(0) : fromServer$.pipe(filter(() => state.pending === 0)),
              );
              // The one end-of-input grace of the bridge (src/bridge/graceStop.ts).
              const stop$ = action$.pipe(
                ignoreElements(),
                endWith(0),
                graceStop({
                  graceMs: config.shutdownGraceMs,
                  scheduler: config.scheduler,
                  idle: () => idle$,
                }),
              );
              return merge(
                fromServer$.pipe(filter(state.forClient)),
                action$.pipe(mergeMap((action) => ('write' in action ? [action.write] : []))),
              ).pipe(takeUntil(stop$));
            }),
          ),
        ),
      );
    });
}
