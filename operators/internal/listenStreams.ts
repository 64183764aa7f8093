/**
 * The streams of one subscription of reopenListen (rules in ../reopenListen.ts): each
 * subscription of the source is one listen request; how each one ended decides, through the
 * backoff (listenBackoff.ts), whether and when the next one opens.
 */
import { EMPTY, catchError, defer, repeat, takeWhile, tap, throwError } from 'rxjs';
import type { Observable } from 'rxjs';
import type { ListenEnd } from '../../src/codec/listenEnd.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import { listenBackoff } from './listenBackoff.js';
import type { ListenBackoffSettings } from './listenBackoff.js';

const isUpstreamCancel = (event: ExchangeEvent): boolean =>
  event.type === 'notification' && event.frame.method === 'notifications/cancelled';

/** The listen streams of one subscription, reopened after each end that the backoff allows. */
export function reopenedStreams(
  source: Observable<ExchangeEvent>,
  backoffSettings: ListenBackoffSettings,
  isAck: (event: ExchangeEvent) => boolean,
  failBeforeFirstAck: boolean,
): Observable<ExchangeEvent> {
  // Per subscription, never shared: the backoff (internal/listenBackoff.ts) and how the streams went.
  const backoff = listenBackoff(backoffSettings);
  let acked = false;
  let end: ListenEnd = {};

  const stream$ = defer(() => {
    backoff.opened();
    end = {};
    return source;
  }).pipe(
    takeWhile((event) => !isUpstreamCancel(event)),
    catchError((error: unknown) => {
      if (failBeforeFirstAck && !acked) return throwError(() => error);
      end = { failed: error };
      return EMPTY;
    }),
    // After catchError, which sees only what the source did: a throw of isAcknowledgment is
    // an error of the output (rule 14), not a lost stream to classify and reopen.
    tap((event) => {
      if (event.type === 'response') {
        end = 'error' in event.frame ? { refused: event.frame.error } : {};
      } else if (isAck(event)) {
        acked = true;
        backoff.acknowledged();
      }
    }),
  );
  // With failBeforeFirstAck, an end before the first acknowledgment is not reopened, nor logged.
  return stream$.pipe(repeat({ delay: () => (failBeforeFirstAck && !acked ? EMPTY : backoff.after(end)) }));
}
