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
  concatMap,
  connect,
  defer,
  endWith,
  filter,
  ignoreElements,
  merge,
  mergeMap,
  of,
  race,
  switchMap,
  take,
  takeUntil,
  tap,
  timer,
} from 'rxjs';
import type { Observable, OperatorFunction, SchedulerLike } from 'rxjs';
import type { Logger } from '../ports/logger.js';
import { bridgeErrorFrame } from '../protocol/errors.js';
import type { Frame, JsonObject, JsonValue, RequestId } from '../protocol/jsonrpc.js';
import { isObject, isRequest, isRequestId, isResponse, notification, result } from '../protocol/jsonrpc.js';
import { META_SERVER_INFO, META_SUBSCRIPTION_ID } from '../protocol/metaKey.js';
import type { Inbound } from '../protocol/parseLine.js';
import { linkServer } from './serverLink.js';

const EOF_REASON = 'the client closed the connection';

export interface ModernPathConfig {
  readonly factory: McpServerFactory;
  /** Requests of the client the server may hold at once; above it: -32603 at once (docs/embedded.md#embedded-limits). */
  readonly maxInFlight: number;
  /** After the end of the input, how long requests in flight may go on, in ms (docs/embedded.md#embedded-limits: 2 s). */
  readonly shutdownGraceMs: number;
  readonly logger: Logger;
  readonly scheduler?: SchedulerLike | undefined;
}

/** One step of the input: a frame for the server, or a frame for the client. */
type Action = { readonly deliver: Frame } | { readonly write: Frame };

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
 * 5. a request above the in-flight limit gets -32603 `too_many_requests` at once.
 * 6. at the end of the input the listen streams end at once with their graceful result.
 * 7. requests in flight at the end of the input may finish within the grace; then the
 *    connection closes and the rest are cancelled.
 */
export function serveModern(config: ModernPathConfig): OperatorFunction<Inbound, Frame> {
  const { logger } = config;
  return (inbound$) =>
    defer(() => {
      // Per subscription: the requests the server holds, its listen streams, and those we ended.
      const pending = new Set<RequestId>();
      const listens = new Set<RequestId>();
      const ended = new Set<RequestId>();
      let serverInfo: JsonValue | undefined;

      const decide = (inbound: Inbound): Action[] => {
        if (inbound.kind === 'blank') return [];
        if (inbound.kind === 'bad') {
          if (inbound.cause === 'line_too_long') {
            logger.log('embed', 'warn', 'dropped a line of the client that is longer than the line limit');
            return [];
          }
          // JSON-RPC 2.0 docs/notifications.md#notifications-listener: the id of a request that cannot be parsed is null.
          const id = inbound.cause === 'parse_error' ? null : inbound.id;
          return [{ write: bridgeErrorFrame(id, inbound.cause, inbound.detail) }];
        }
        const frame = inbound.frame;
        if (isRequest(frame)) {
          if (pending.size >= config.maxInFlight) {
            return [{ write: bridgeErrorFrame(frame.id, 'too_many_requests') }];
          }
          pending.add(frame.id);
          if (frame.method === 'subscriptions/listen') listens.add(frame.id);
        } else if (!isResponse(frame) && frame.method === 'notifications/cancelled') {
          // A cancelled request gets no answer from the server (its channel settles it too).
          const id = frame.params?.['requestId'];
          if (isRequestId(id)) {
            pending.delete(id);
            listens.delete(id);
          }
        }
        return [{ deliver: frame }];
      };

      // docs/embedded.md#embedded-selection: the listen streams end at once at the end of the input, as serveStdio ends them at
      // its close: the server forgets each one, and it gets its graceful result.
      const endListens = (): Action[] =>
        [...listens].flatMap((id): Action[] => {
          ended.add(id);
          pending.delete(id);
          listens.delete(id);
          const meta: JsonObject = { [META_SUBSCRIPTION_ID]: id };
          if (serverInfo !== undefined) meta[META_SERVER_INFO] = serverInfo;
          return [
            { deliver: notification('notifications/cancelled', { requestId: id, reason: EOF_REASON }) },
            { write: result(id, { resultType: 'complete', _meta: meta }) },
          ];
        });

      const track = (frame: Frame): void => {
        if (!isResponse(frame) || frame.id === null) return;
        pending.delete(frame.id);
        listens.delete(frame.id);
        const meta = 'result' in frame ? frame.result['_meta'] : undefined;
        if (isObject(meta) && meta[META_SERVER_INFO] !== undefined) serverInfo = meta[META_SERVER_INFO];
      };

      // Nothing of a listen stream we ended reaches the client after its result.
      const forClient = (frame: Frame): boolean => {
        if (isResponse(frame)) return frame.id === null || !ended.has(frame.id);
        const meta = frame.params?.['_meta'];
        const subscriptionId = isObject(meta) ? meta[META_SUBSCRIPTION_ID] : undefined;
        return !isRequestId(subscriptionId) || !ended.has(subscriptionId);
      };

      const actions$ = concat(inbound$.pipe(concatMap(decide)), defer(endListens));
      return actions$.pipe(
        connect((action$) =>
          action$.pipe(
            mergeMap((action) => ('deliver' in action ? [action.deliver] : [])),
            linkServer(config.factory, { onError: (error) => logger.log('embed', 'debug', error.message) }),
            tap(track),
            connect((fromServer$) => {
              const idle$: Observable<unknown> = defer(() =>
                pending.size === 0 ? of(0) : fromServer$.pipe(filter(() => pending.size === 0)),
              );
              const stop$ = action$.pipe(
                ignoreElements(),
                endWith(0),
                switchMap(() => race(idle$, timer(config.shutdownGraceMs, config.scheduler))),
                take(1),
              );
              return merge(
                fromServer$.pipe(filter(forClient)),
                action$.pipe(mergeMap((action) => ('write' in action ? [action.write] : []))),
              ).pipe(takeUntil(stop$));
            }),
          ),
        ),
      );
    });
}
