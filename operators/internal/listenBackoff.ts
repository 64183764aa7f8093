/**
 * The backoff of reopenListen: what follows the end of one listen stream (a wait then a new stream,
 * a wait for the next sign-in, or nothing) and its log line, with the count of consecutive losses
 * and the uptime after the acknowledgment that resets it (docs/notifications.md#notifications-reconnect, docs/http-upstream.md#http-listen-stream). The
 * stream handling (../reopenListen.ts) tells it when a stream opens, when it is acknowledged and
 * how it ended; which end means what is the pure decision of src/codec/listenEnd.ts.
 */
import { EMPTY, take, tap, timer } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import type { ListenEnd, ListenNext } from '../../src/codec/listenEnd.js';
import { formatDuration } from '../../src/protocol/errors.js';

/** The settings of the backoff: those of ReopenListenConfig, defaults applied. */
export interface ListenBackoffSettings {
  readonly initialMs: number;
  readonly factor: number;
  readonly maxMs: number;
  readonly resetAfterMs: number;
  readonly classifyEnd: (end: ListenEnd, canSignIn: boolean) => ListenNext;
  readonly signIn$: Observable<unknown> | undefined;
  readonly log: (level: 'info' | 'warn', text: string) => void;
  readonly scheduler: SchedulerLike;
}

/** The backoff of one subscription of reopenListen. */
export interface ListenBackoff {
  /** A new stream opens: its uptime has not started. */
  opened(): void;
  /** The stream is acknowledged: the first acknowledgment of a stream starts its uptime. */
  acknowledged(): void;
  /** What follows the end of the stream: completes (or emits) when the next one may open; EMPTY stops. */
  after(end: ListenEnd): Observable<unknown>;
}

/** A new backoff: one per subscription, so that its counts are never shared. */
export function listenBackoff(settings: ListenBackoffSettings): ListenBackoff {
  const { initialMs, factor, maxMs, resetAfterMs, classifyEnd, signIn$, log, scheduler } = settings;
  let attempt = 0;
  let ackedAt: number | undefined;
  return {
    opened: () => {
      ackedAt = undefined;
    },
    acknowledged: () => {
      ackedAt ??= scheduler.now();
    },
    after: (end) => {
      const { kind, why, level = 'warn' } = classifyEnd(end, signIn$ !== undefined);
      if (kind === 'reopen') {
        const lived = ackedAt === undefined ? 0 : scheduler.now() - ackedAt;
        if (lived >= resetAfterMs) attempt = 0;
        const waitMs = Math.min(initialMs * factor ** attempt, maxMs);
        if (waitMs < maxMs) attempt += 1;
        log(level, `${why}; the next one opens in ${formatDuration(waitMs)}.`);
        return timer(waitMs, scheduler);
      }
      if (kind === 'signIn' && signIn$ !== undefined) {
        log('warn', `${why}; the next one opens after the next sign-in.`);
        return signIn$.pipe(
          take(1),
          tap(() => log('info', 'a sign-in completed; the listen stream opens again.')),
        );
      }
      if (why !== undefined) log('warn', `${why}; list changes stop.`);
      return EMPTY;
    },
  };
}
