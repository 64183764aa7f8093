/**
 * The state of the client's resource subscriptions on one connection (docs/notifications.md#notifications-catch-up
 * –docs/notifications.md#notifications-subscribe): the subscribed URIs, the active chain, the gap flag, the waiting changes, and what
 * an event of a chain does to them (commit of a change, its failure, the gap replay, forwarding).
 * subscriptions.ts owns one of these per listener; subscriptionStream.ts feeds it the events of
 * each chain.
 *
 * A chain is one listen request with a fixed filter, reopened after each loss. Exactly one chain
 * is active; only its events reach the client (generation gating). A change opens a new chain
 * with the full URI set ("make before break"); its first acknowledgment commits the change: the
 * response `{}` is written, then the old chain is cancelled.
 */
import type { ReplaySubject, Subscriber } from 'rxjs';
import { Subject } from 'rxjs';
import type { ExchangeEvent } from '../ports/upstream.js';
import {
  ALL_LISTS,
  LISTEN_ACKNOWLEDGED,
  RESOURCE_UPDATED,
  gapReplay,
  toLegacyListenEvent,
} from '../codec/listen.js';
import type { DeclaredLists, ListSet } from '../codec/listen.js';
import { toClientError } from '../codec/upstreamError.js';
import { failureText } from '../ports/causeOf.js';
import { CLIENT_CLOSED_REASON, LISTEN_REPLACED_REASON } from '../protocol/cancelReasons.js';
import { bridgeError } from '../protocol/errors.js';
import type { ErrorObject, Frame, RequestFrame } from '../protocol/jsonrpc.js';
import { errorResponse, isErrorResponse, result } from '../protocol/jsonrpc.js';

/** One `resources/subscribe` or `resources/unsubscribe` waiting for its response. */
export interface Change {
  readonly request: RequestFrame;
  readonly uri: string;
  readonly subscribe: boolean;
  readonly sink: Subscriber<Frame>;
  /** Fires once the change is answered or dropped: the next change may start. */
  readonly settled$: ReplaySubject<void>;
  chain?: Chain;
}

/** One listen request with a fixed filter and its reopenings. */
export interface Chain {
  readonly uris: readonly string[];
  /** The change this chain carries out; undefined for the chain the listener starts with. */
  readonly change: Change | undefined;
  acks: number;
  streamAcks: number;
  cancelReason: string;
  readonly kill$: Subject<void>;
}

export const CLOSED = CLIENT_CLOSED_REASON;
const REPLACED = LISTEN_REPLACED_REASON;

export interface SubscriptionState {
  /** The URIs of the active chain (the subscriptions the client holds). */
  uris: readonly string[];
  active: Chain | undefined;
  /** The watch broke (or never started): the next acknowledgment of the active chain replays. */
  gap: boolean;
  /** The listener stopped: a new change gets no response. */
  stopped: boolean;
  readonly pending: Set<Change>;
  newChain(uris: readonly string[], change: Change | undefined): Chain;
  /** Cancels the streams of a chain with a reason for the upstream. */
  kill(chain: Chain | undefined, reason: string): void;
  /** Answers (or drops) a change; `then` runs before the next change may start. */
  settle(change: Change, response: Frame | undefined, then?: () => void): void;
  /** A chain of a change ended before its first acknowledgment (docs/notifications.md#notifications-subscribe): the old stream stays. */
  fail(chain: Chain, error: ErrorObject, why: string): void;
  /** The frames for the client of one event of a chain. */
  handle(chain: Chain, event: ExchangeEvent): Frame[];
}

/**
 * `fetched` reads the lists the client fetched so far: the catch-up of the first acknowledgment
 * of the connection covers only those, every later one all declared lists (README.md "List
 * changes and subscriptions"). `firstAck` is called at that first acknowledgment, after its
 * catch-up was made.
 */
export function createSubscriptionState(
  declared: DeclaredLists,
  log: (level: 'info' | 'warn', text: string) => void,
  fetched: () => ListSet,
  firstAck: () => void = () => undefined,
): SubscriptionState {
  /** An acknowledgment of the active chain already came: a later catch-up covers every list. */
  let acknowledged = false;
  /** An update for a URI the client did not subscribe to was dropped and logged. */
  let strayLogged = false;
  const replay = (): Frame[] => {
    const first = !acknowledged;
    acknowledged = true;
    const events = state.gap ? gapReplay(declared, state.uris, first ? fetched() : ALL_LISTS) : [];
    state.gap = false;
    // Told after the catch-up was made: a list request it releases is not in it
    // (docs/notifications.md#notifications-first-list).
    if (first) firstAck();
    return events;
  };

  /** The first acknowledgment of a change's chain: respond, then cancel the old chain (docs/notifications.md#notifications-subscribe). */
  const commit = (chain: Chain, change: Change): Frame[] => {
    const old = state.active;
    state.active = chain;
    state.uris = chain.uris;
    state.settle(change, result(change.request.id, {}), () => state.kill(old, REPLACED));
    return replay();
  };

  const onAck = (chain: Chain): Frame[] => {
    chain.acks += 1;
    chain.streamAcks += 1;
    if (chain.change !== undefined && chain.acks === 1) return commit(chain, chain.change);
    // An old stream that acknowledges late never replaces a newer one.
    if (chain !== state.active) return [];
    // A second acknowledgment within one stream is a hidden re-attempt: replay too (docs/notifications.md#notifications-catch-up).
    if (chain.streamAcks > 1) state.gap = true;
    return replay();
  };

  const state: SubscriptionState = {
    uris: [],
    active: undefined,
    gap: false,
    stopped: false,
    pending: new Set<Change>(),
    newChain: (chainUris, change) => ({
      uris: chainUris,
      change,
      acks: 0,
      streamAcks: 0,
      cancelReason: CLOSED,
      kill$: new Subject<void>(),
    }),
    kill(chain, reason) {
      if (chain === undefined) return;
      chain.cancelReason = reason;
      chain.kill$.next();
    },
    settle(change, response, then) {
      if (!state.pending.delete(change)) return;
      if (response !== undefined) change.sink.next(response);
      change.sink.complete();
      then?.();
      change.settled$.next();
    },
    fail(chain, error, why) {
      const change = chain.change;
      if (change === undefined || chain.acks > 0 || !state.pending.has(change)) return;
      log('warn', `the listen stream for a change of the subscriptions failed: ${why}`);
      state.settle(change, errorResponse(change.request.id, error));
    },
    handle(chain, event) {
      if (event.type === 'response') {
        const frame = event.frame;
        if (isErrorResponse(frame)) {
          state.fail(chain, toClientError(frame.error), `error ${frame.error.code}: ${frame.error.message}`);
        } else {
          const why = 'subscriptions/listen ended before its acknowledgment';
          state.fail(chain, bridgeError('invalid_response', why), why);
        }
        return [];
      }
      if (event.frame.method === LISTEN_ACKNOWLEDGED) return onAck(chain);
      if (chain !== state.active) return [];
      // A failure on one event drops that event, never the stream (docs/notifications.md#notifications-events).
      try {
        const legacy = toLegacyListenEvent(event.frame, declared);
        if (legacy === undefined) return [];
        // docs/serve.md#serve-routing: an update reaches only a client subscribed to its URI,
        // whatever the server sends on the stream.
        if (legacy.method === RESOURCE_UPDATED && !chain.uris.includes(legacy.params?.['uri'] as string)) {
          // One line per connection: a server that sends every update on every stream would flood the log.
          if (!strayLogged) {
            strayLogged = true;
            log(
              'warn',
              'dropped a resource update of the upstream server for a URI the client did not subscribe to (further ones are dropped silently)',
            );
          }
          return [];
        }
        return [legacy];
      } catch (error: unknown) {
        log(
          'warn',
          `dropped the listen event ${event.frame.method}: the bridge failed on it (${failureText(error)})`,
        );
        return [];
      }
    },
  };
  return state;
}
