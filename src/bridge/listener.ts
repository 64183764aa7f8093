/**
 * The listener of one connection (docs/notifications.md#notifications-listener): list changes and resource
 * updates of a 2026-07-28 upstream, which only flow on `subscriptions/listen` streams, become
 * the unsolicited 2025-11-25 notifications VS Code expects, and `resources/subscribe` /
 * `resources/unsubscribe` become changes of the listen filter.
 */
import { EMPTY, defer, finalize, of, switchMap, take } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import { listenFilter } from '../codec/listen.js';
import type { DeclaredLists } from '../codec/listen.js';
import { buildUpstreamMeta } from '../codec/meta.js';
import { bridgeErrorFrame } from '../protocol/errors.js';
import type { Frame, RequestFrame } from '../protocol/jsonrpc.js';
import type { BridgeDeps, BridgeLimits } from './config.js';
import type { ClientContext, Session } from './session.js';
import { createSubscriptions } from './subscriptions.js';
import type { Subscriptions } from './subscriptions.js';
import type { ExchangeEvent, UpstreamConnection } from '../ports/upstream.js';

export interface ListenerContext {
  readonly session: Session;
  readonly deps: BridgeDeps;
  readonly limits: BridgeLimits;
  readonly scheduler: SchedulerLike | undefined;
  /**
   * Emits after each completed sign-in: a listen stream refused with HTTP 401/403 waits for it,
   * then opens again (docs/http-upstream.md#http-listen-stream). Without it such a stream stops.
   */
  readonly signIn$?: Observable<unknown> | undefined;
  /** Where the running listener is kept for `handleSubscription` of the same connection. */
  readonly slot: ListenerSlot;
}

/**
 * The running listener of one connection, for `handleSubscription`: set while the listener runs,
 * cleared when it stops. createBridge makes one per connection and gives it to both the listener
 * and the dispatcher, so the state lives with the connection that owns it, not in a table keyed
 * by the session.
 */
export interface ListenerSlot {
  current: Subscriptions | undefined;
}

export const createListenerSlot = (): ListenerSlot => ({ current: undefined });

/** docs/notifications.md#notifications-listener: a listener runs only for a declared `listChanged` flag or `resources.subscribe`. */
const needsListener = (declared: DeclaredLists): boolean =>
  declared.tools || declared.prompts || declared.resources || declared.subscribe;

/** One `subscriptions/listen` request; `_meta` has the log level current at its start (docs/requests.md#requests-meta). */
function listenRequest(
  session: Session,
  client: ClientContext,
  upstream: UpstreamConnection,
  declared: DeclaredLists,
): (uris: readonly string[], cancelReason: () => string) => Observable<ExchangeEvent> {
  return (uris: readonly string[], cancelReason: () => string) =>
    defer(() => {
      const level = session.logLevel;
      const meta = buildUpstreamMeta(
        {
          clientInfo: client.info,
          clientCapabilities: client.upstreamCapabilities,
          ...(level === undefined ? {} : { logLevel: level }),
        },
        undefined,
      );
      return upstream.request(
        'subscriptions/listen',
        { _meta: meta, notifications: listenFilter(declared, uris) ?? {} },
        { cancelReason },
      );
    });
}

/**
 * Runs the listener once `notifications/initialized` arrived in state ready (docs/lifecycle.md#lifecycle-client-notifications, docs/notifications.md#notifications-listener)
 * and the initialize result declared something to listen for. Emits the notifications for the
 * client; unsubscribing (end of input, upstream loss) cancels every listen stream and drops
 * the upstream subscriptions (VS Code never unsubscribes by itself).
 *
 * The reconnect is the one of reopenListen. The wait of list requests for the first
 * acknowledgment is in firstList.ts.
 *
 * Rules (marbles/subscriptions.marbles.test.ts):
 * 1. gap replay after each ack lists tools, prompts, resources, then each subscribed URI
 * 2. the first ack of a connection lists no list the client has not fetched
 * 3. a list request before the first ack waits for it and gets no list change
 * 4. a list request waits for the first ack at most firstAckWaitMs, then it is answered and the ack lists it
 * 5. a client cancel of a list request that waits for the first ack ends it without a response or a forward
 * 6. the first ack lists each list whose request the bridge forwarded before it, and a later gap lists all
 * 7. a second ack within one stream replays again
 * 8. an upstream notifications/cancelled ends the stream without reaching the client, and a new one follows
 * 9. the subscribe response precedes the cancellation of the old stream and any update of the URI
 * 10. an update of a replaced stream is dropped
 * 11. events of a stream that is not yet acknowledged are dropped
 * 12. a failed replacement keeps the old stream and reports the upstream error
 * 13. the last unsubscribe with no declared lists ends the stream and opens none
 * 14. a subscribe-only upstream opens its first stream on the first subscribe, without a replay
 * 15. two concurrent subscribes both answer {} and the second stream has both URIs
 * 16. a change that waits when the listener stops gets no response
 * 17. a client cancel of a waiting subscribe cancels its stream and gets no response
 * 18. the end of input during a backoff wait opens no stream
 * 19. each listen stream carries the log level current at its start
 * 20. a replacement stream that is never acknowledged fails the change with timeout after the list time limit, and the old stream stays
 */
export function startListener(ctx: ListenerContext): Observable<Frame> {
  const { session, deps, limits } = ctx;
  return session.initialized$.pipe(
    take(1),
    switchMap(() =>
      defer(() => {
        const { declared, client, upstream } = session;
        if (declared === undefined || client === undefined || upstream === undefined) return EMPTY;
        if (!needsListener(declared)) return EMPTY;
        const log = (level: 'info' | 'warn', text: string): void => deps.logger.log('bridge', level, text);
        const subscriptions = createSubscriptions({
          declared,
          fetchedLists: () => session.listsFetched,
          firstAck: session.acknowledgeListen,
          openStream: listenRequest(session, client, upstream, declared),
          reopen: {
            initialMs: limits.listenBackoffMs,
            maxMs: limits.listenMaxBackoffMs,
            resetAfterMs: limits.listenResetAfterMs,
            scheduler: ctx.scheduler,
            signIn$: ctx.signIn$,
            log,
          },
          log,
          cancels$: session.cancels$,
          ackTimeoutMs: limits.listTimeoutMs,
          scheduler: ctx.scheduler,
        });
        ctx.slot.current = subscriptions;
        return subscriptions.output$.pipe(
          finalize(() => {
            if (ctx.slot.current === subscriptions) ctx.slot.current = undefined;
          }),
        );
      }),
    ),
  );
}

/**
 * `resources/subscribe` and `resources/unsubscribe` (docs/notifications.md#notifications-subscribe): -32601 without the capability or a
 * running listener, -32602 without a string `uri`; otherwise the change is queued and answered
 * `{}` once the stream with the new URI set is acknowledged.
 */
export function handleSubscription(
  slot: ListenerSlot,
  session: Session,
  request: RequestFrame,
): Observable<Frame> {
  const subscriptions = slot.current;
  if (session.declared?.subscribe !== true || subscriptions === undefined) {
    return of(bridgeErrorFrame(request.id, 'method_not_found'));
  }
  const uri = request.params?.['uri'];
  if (typeof uri !== 'string') return of(bridgeErrorFrame(request.id, 'invalid_params'));
  return subscriptions.submit(request, uri, request.method === 'resources/subscribe');
}
