/**
 * The list requests of the start (docs/notifications.md#notifications-first-list): a client lists
 * right after `initialize`, mostly before the listen stream is acknowledged. Such a list may
 * predate a change that the stream, once established, no longer reports, so the first
 * acknowledgment's catch-up would send a list change for it, and the client would list again.
 * Instead, a list request of a watched list waits for that acknowledgment, at most
 * `firstAckWaitMs`; one that waited that long goes on and is covered by the catch-up as before.
 */
import { EMPTY, defer, filter, map, merge, mergeMap, race, take, timer } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import { declaredListSet, listOfRequest } from '../codec/listen.js';
import type { Frame, RequestFrame } from '../protocol/jsonrpc.js';
import type { Session } from './session.js';

/** True when `method` fetches a list that the listen stream of the session watches. */
export function watchesList(session: Session, method: string): boolean {
  const declared = session.declared;
  return declared !== undefined && (declaredListSet(declared) & listOfRequest(method)) !== 0;
}

/**
 * `forward$` once the first acknowledgment of the session's listen stream came (at once when it
 * already did), after `waitMs` at the latest, or at the end of the session (the forwarded
 * request then stops as any running one does). A client cancel of the request while it waits
 * ends it without a response, as a cancelled request gets none.
 */
export function afterFirstAck(
  session: Session,
  request: RequestFrame,
  waitMs: number,
  scheduler: SchedulerLike | undefined,
  forward$: Observable<Frame>,
): Observable<Frame> {
  const go$ = race(
    merge(session.listenAcknowledged$, session.aborted$, timer(waitMs, scheduler)).pipe(
      take(1),
      map(() => true),
    ),
    session.cancels$.pipe(
      filter((id) => id === request.id),
      take(1),
      map(() => false),
    ),
  );
  return go$.pipe(mergeMap((go) => (go ? defer(() => forward$) : EMPTY)));
}
