/**
 * The modern path of embedded mode (docs/embedded.md#embedded-selection): the client speaks 2026-07-28, and
 * every frame goes to the SDK's `serveStdio` over the in-memory link; the server's frames go to
 * the client unchanged. This file adds only what a stdio server must do around `serveStdio`,
 * which never sees bytes here: the answer to bad lines, the in-flight limit, and the bounded
 * stop at the end of the input.
 */
import type { McpServerFactory } from '@modelcontextprotocol/server';
import {
  Observable,
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
import type { ObservableInput, OperatorFunction, SchedulerLike, Subscriber } from 'rxjs';
import { limitInFlight } from '../../operators/limitInFlight.js';
import { graceStop } from '../bridge/graceStop.js';
import { takesInFlightPlace } from '../ports/inFlight.js';
import type { Logger } from '../ports/logger.js';
import { CLIENT_CLOSED_REASON } from '../protocol/cancelReasons.js';
import { bridgeErrorFrame } from '../protocol/errors.js';
import type { Frame, JsonObject, JsonValue, RequestFrame, RequestId } from '../protocol/jsonrpc.js';
import { isObject, isRequest, isRequestId, isResponse, notification, result } from '../protocol/jsonrpc.js';
import { META_SERVER_INFO, META_SUBSCRIPTION_ID } from '../protocol/metaKey.js';
import type { Inbound } from '../protocol/parseLine.js';
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
      // Per subscription: the requests the server holds, its listen streams, and those we ended.
      const pending = new Set<RequestId>();
      const listens = new Set<RequestId>();
      const ended = new Set<RequestId>();
      // The places of the in-flight limit, by request id: each one is the task of limitInFlight
      // that holds it, ended when its request settles (rule 5).
      const places = new Map<RequestId, Subscriber<Action>>();
      let serverInfo: JsonValue | undefined;

      /** The request `id` is answered, cancelled or ended by us: it leaves the count. */
      const settle = (id: RequestId): void => {
        pending.delete(id);
        listens.delete(id);
        places.get(id)?.complete();
      };

      /** A counted request: delivered at once, its place held until it settles. */
      const hold = (frame: RequestFrame): Observable<Action> =>
        new Observable<Action>((place) => {
          // An id the client reuses while it is in flight: the older place is given back, so
          // none is ever lost (the server answers each id as it does).
          places.get(frame.id)?.complete();
          places.set(frame.id, place);
          place.next({ deliver: frame });
          return () => {
            if (places.get(frame.id) === place) places.delete(frame.id);
          };
        });

      const decide = (inbound: Inbound): ObservableInput<Action> => {
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
          pending.add(frame.id);
          if (frame.method === 'subscriptions/listen') listens.add(frame.id);
          if (takesInFlightPlace(inbound)) return hold(frame);
        } else if (!isResponse(frame) && frame.method === 'notifications/cancelled') {
          // A cancelled request gets no answer from the server (its channel settles it too).
          const id = frame.params?.['requestId'];
          if (isRequestId(id)) settle(id);
        }
        return [{ deliver: frame }];
      };

      // docs/embedded.md#embedded-limits: a request above the limit is refused at once; the
      // bridge's rule says which count (src/ports/inFlight.ts): ping and notifications never do.
      const refuse = (inbound: Inbound): Action[] =>
        inbound.kind === 'frame' && isRequest(inbound.frame)
          ? [{ write: bridgeErrorFrame(inbound.frame.id, 'too_many_requests') }]
          : [];

      // docs/embedded.md#embedded-selection: the listen streams end at once at the end of the input, as serveStdio ends them at
      // its close: the server forgets each one, and it gets its graceful result.
      const endListens = (): Action[] =>
        [...listens].flatMap((id): Action[] => {
          ended.add(id);
          settle(id);
          const meta: JsonObject = { [META_SUBSCRIPTION_ID]: id };
          if (serverInfo !== undefined) meta[META_SERVER_INFO] = serverInfo;
          return [
            {
              deliver: notification('notifications/cancelled', {
                requestId: id,
                reason: CLIENT_CLOSED_REASON,
              }),
            },
            { write: result(id, { resultType: 'complete', _meta: meta }) },
          ];
        });

      /** At the end of the input no request comes any more: the places are given back, so the
       * actions end now; what the server still holds stays pending for the grace (rule 7). */
      const releasePlaces = (): void => {
        for (const place of [...places.values()]) place.complete();
      };

      const track = (frame: Frame): void => {
        if (!isResponse(frame) || frame.id === null) return;
        settle(frame.id);
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

      const actions$ = concat(
        inbound$.pipe(
          tap({ complete: releasePlaces }),
          limitInFlight({ maxInFlight: config.maxInFlight, counts: takesInFlightPlace }, decide, refuse),
        ),
        defer(endListens),
      );
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
                fromServer$.pipe(filter(forClient)),
                action$.pipe(mergeMap((action) => ('write' in action ? [action.write] : []))),
              ).pipe(takeUntil(stop$));
            }),
          ),
        ),
      );
    });
}
