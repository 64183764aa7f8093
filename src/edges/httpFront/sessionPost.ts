/**
 * The messages of one POST into a session (docs/serve.md#serve-sessions): each request is keyed
 * by its id in the session (a second request with an id in flight gets `duplicate_request_id` and
 * no place of any limit), each message goes through the in-flight limit of all sessions in the
 * order of the body, and a POST stream dropped before its answers cancels its requests.
 */
import { Observable } from 'rxjs';
import { CLIENT_CLOSED_STREAM_REASON } from '../../protocol/cancelReasons.js';
import { bridgeErrorFrame } from '../../protocol/errors.js';
import type { RequestId } from '../../protocol/jsonrpc.js';
import { isObject, isRequestId, notification } from '../../protocol/jsonrpc.js';
import type { Inbound } from '../../protocol/parseLine.js';
import type { Exchange } from './exchange.js';
import type { Admission } from './frontSession.js';
import type { OutputGuard } from './sessionOutput.js';
import type { SessionRequests } from './sessionRequests.js';
import type { ExtraHeaders, PostStream } from './streams.js';

/** What a POST needs of its session. */
export interface PostContext {
  readonly requests: SessionRequests;
  /** The headers of every answer of the session. */
  readonly headers: () => ExtraHeaders;
  readonly ended: () => boolean;
  /** Gives a message to the session's bridge. */
  readonly input: (message: Inbound) => void;
  readonly admit: (admission: Admission) => void;
  /** The count of open POST streams of the session. */
  readonly streams: { open: number };
  /** A POST stream of the session closed. */
  readonly closed: () => void;
  /** The bound of the session's unread output (sessionOutput.ts). */
  readonly guard: OutputGuard;
}

const requestIdOf = (m: Inbound): RequestId | undefined =>
  m.kind === 'frame' && 'method' in m.frame && 'id' in m.frame ? m.frame.id : undefined;

/** The request a client's `notifications/cancelled` names, if any. */
const cancelledIdOf = (m: Inbound): RequestId | undefined => {
  if (m.kind !== 'frame' || !('method' in m.frame) || 'id' in m.frame) return undefined;
  if (m.frame.method !== 'notifications/cancelled' || !isObject(m.frame.params)) return undefined;
  const id = m.frame.params['requestId'];
  return isRequestId(id) ? id : undefined;
};

/** A message that is not a request: it takes no place; a cancel ends its request's place. */
const passing = (m: Inbound, c: PostContext): Admission => {
  const run = new Observable<never>((subscriber) => {
    c.input(m);
    const cancelled = cancelledIdOf(m);
    // docs/serve.md#serve-sessions: a cancelled request gets no answer; its POST ends without one.
    if (cancelled !== undefined) c.requests.take(cancelled)?.unanswered();
    subscriber.complete();
  });
  return { inbound: m, run, refuse: run };
};

/** A request: in flight from its admission until its answer, its cancel or the session's end. */
const request = (m: Inbound, id: RequestId, c: PostContext): Admission => ({
  inbound: m,
  run: new Observable<never>((subscriber) => {
    c.requests.onLeave(id, () => subscriber.complete());
    c.input(m);
  }),
  refuse: new Observable<never>((subscriber) => {
    c.requests.take(id)?.deliver(bridgeErrorFrame(id, 'too_many_requests'), true);
    subscriber.complete();
  }),
});

/** docs/serve.md#serve-sessions: a stream dropped before its answers cancels its requests. */
function dropped(stream: PostStream, c: PostContext): void {
  if (c.ended()) return;
  cancelAsDropped(c.requests.idsOf(stream), c);
}

/**
 * Cancels requests as a dropped stream does: each leaves its session (its places of the limits
 * are free) and the bridge gets a `notifications/cancelled` for it, which cancels it upstream.
 * Also the path of a session whose client does not read (docs/serve.md#serve-limits).
 */
export function cancelAsDropped(ids: readonly RequestId[], c: Pick<PostContext, 'requests' | 'input'>): void {
  for (const id of ids) {
    if (c.requests.take(id) === undefined) continue;
    c.input({
      kind: 'frame',
      frame: notification('notifications/cancelled', {
        requestId: id,
        reason: CLIENT_CLOSED_STREAM_REASON,
      }),
    });
  }
}

/** Gives the messages of one POST to its session and answers the POST. */
export function postMessages(messages: readonly Inbound[], exchange: Exchange, c: PostContext): void {
  const count = messages.filter((m) => requestIdOf(m) !== undefined).length;
  if (count === 0) {
    for (const m of messages) if (!c.ended()) c.admit(passing(m, c));
    exchange.reply(202, undefined, c.headers());
    return;
  }
  const stream = exchange.postStream(count, c.headers, c.guard);
  c.streams.open += 1;
  exchange.onClose(() => {
    c.streams.open -= 1;
    dropped(stream, c);
    c.closed();
  });
  for (const m of messages) {
    if (c.ended()) return;
    const id = requestIdOf(m);
    if (id === undefined) c.admit(passing(m, c));
    else if (c.requests.add(id, stream)) c.admit(request(m, id, c));
    else stream.deliver(bridgeErrorFrame(id, 'duplicate_request_id'), true);
  }
}
