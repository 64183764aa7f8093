/**
 * The state of one connection of embedded mode's modern path (docs/embedded.md#embedded-limits,
 * rules in modernPath.ts): the requests the server holds, its listen streams, those the path
 * ended, and the places of the in-flight limit; what each input line becomes (an action), and
 * which of the server's frames still reach the client. modernPath.ts composes it with RxJS.
 */
import { Observable } from 'rxjs';
import type { ObservableInput, Subscriber } from 'rxjs';
import type { Logger } from '../ports/logger.js';
import { takesInFlightPlace } from '../ports/inFlight.js';
import { CLIENT_CLOSED_REASON } from '../protocol/cancelReasons.js';
import { bridgeErrorFrame } from '../protocol/errors.js';
import type { Frame, JsonObject, JsonValue, RequestFrame, RequestId } from '../protocol/jsonrpc.js';
import { isObject, isRequest, isRequestId, isResponse, notification, result } from '../protocol/jsonrpc.js';
import { META_SERVER_INFO, META_SUBSCRIPTION_ID } from '../protocol/metaKey.js';
import type { Inbound } from '../protocol/parseLine.js';

/** One step of the input: a frame for the server, or a frame for the client. */
export type Action = { readonly deliver: Frame } | { readonly write: Frame };

export interface ModernState {
  /** What an input line becomes, holding a place of the limit for a counted request (rules 1-5). */
  readonly decide: (inbound: Inbound) => ObservableInput<Action>;
  /** The answer to a request above the in-flight limit (rule 5). */
  readonly refuse: (inbound: Inbound) => Action[];
  /** At the end of the input: the listen streams end with their graceful result (rule 6). */
  readonly endListens: () => Action[];
  /** At the end of the input: the places are given back (rule 7). */
  readonly releasePlaces: () => void;
  /** Notes a frame of the server: an answer settles its request. */
  readonly track: (frame: Frame) => void;
  /** Whether a frame of the server still reaches the client. */
  readonly forClient: (frame: Frame) => boolean;
  /** Requests the server still holds. */
  readonly pending: number;
}

export function createModernState(logger: Logger): ModernState {
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

  return {
    decide,
    refuse,
    endListens,
    releasePlaces,
    track,
    forClient,
    get pending() {
      return pending.size;
    },
  };
}
