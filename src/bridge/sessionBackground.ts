/**
 * What a session shows its client beside the answers to its requests (docs/architecture.md#architecture-data-flow):
 * the upstream's log messages, the exit of the upstream process, the start-up line about URL
 * elicitation, and the shaping of these background frames for the client's revision.
 */
import type { MonoTypeOperatorFunction } from 'rxjs';
import { EMPTY, Observable, merge, mergeMap, of, switchMap, take, tap } from 'rxjs';
import { downgradeFrame } from '../codec/downgrade.js';
import { toLegacyLogMessage } from '../codec/logMessage.js';
import { NEWEST_CLIENT_REVISION } from '../codec/revisions.js';
import { errorName } from '../ports/causeOf.js';
import { UPSTREAM_STOPPED_REASON } from '../protocol/cancelReasons.js';
import { bridgeError } from '../protocol/errors.js';
import type { Frame, NotificationFrame } from '../protocol/jsonrpc.js';
import type { BridgeDeps } from './config.js';
import { declaresUrlElicitation } from './consent.js';
import type { Session } from './session.js';

/**
 * Upstream log messages for the client, filtered by its level (docs/notifications.md#notifications-log-levels);
 * a failure drops one. They are those of no exchange (`notifications$`) and those of this
 * connection's own exchanges (`own$`, sessionUpstream.ts), never those of another connection's
 * (docs/serve.md#serve-routing).
 */
export function logMessages(
  session: Session,
  deps: BridgeDeps,
  own$: Observable<NotificationFrame>,
): Observable<Frame> {
  return session.ready$.pipe(
    take(1),
    switchMap((upstream) => merge(upstream.notifications$, own$)),
    mergeMap((frame) => {
      try {
        const message = toLegacyLogMessage(frame, session.logLevel);
        return message === undefined ? EMPTY : of(message);
      } catch (error: unknown) {
        deps.logger.log(
          'bridge',
          'err',
          `dropped the notification ${frame.method} of the upstream server: the bridge failed on it (${errorName(error)})`,
        );
        return EMPTY;
      }
    }),
  );
}

/** Watches the upstream process: its exit stops every request (docs/lifecycle.md#lifecycle-upstream-loss). */
export function upstreamExit(session: Session, deps: BridgeDeps): Observable<never> {
  return session.ready$.pipe(
    take(1),
    switchMap((upstream) => upstream.exit$),
    take(1),
    tap(({ code, signal }) => {
      const how = signal === null ? `exited with code ${String(code)}` : `stopped on signal ${signal}`;
      // The one line of this exit with code 1: the cause and the error code.
      deps.logger.log('bridge', 'err', `the upstream server ${how} (upstream_exited)`);
      session.upstreamLost({ reason: UPSTREAM_STOPPED_REASON, error: bridgeError('upstream_exited') });
    }),
    mergeMap(() => EMPTY),
  );
}

/**
 * docs/sign-in.md#sign-in-consent: the info line at start for a client without URL elicitation (a
 * profile that opens the browser for it says so instead, README.md "Sign-in and tokens").
 */
export function noUrlElicitation(session: Session, deps: BridgeDeps): Observable<never> {
  return session.ready$.pipe(
    take(1),
    tap(() => {
      if (declaresUrlElicitation(session.client?.capabilities)) return;
      deps.logger.log(
        'bridge',
        'info',
        deps.consent?.browserWithoutUrlElicitation === true
          ? 'the client did not declare URL elicitation: a later sign-in opens the browser'
          : 'the client did not declare URL elicitation: a later sign-in fails, and a restart of the server signs in again',
      );
    }),
    mergeMap(() => EMPTY),
  );
}

/**
 * The frames of the background (log messages, listen events, the sign-in's frames), shaped for
 * the revision of the session (docs/revisions.md): a comparison per frame for 2025-11-25; for an
 * older revision they lose what it lacks, and a notification it does not have is not written. A
 * failure drops the frame, with a log line. The frames of forwarded requests are shaped where
 * they are made (forwardShape.ts), and the initialize result in initialize.ts.
 */
export function forRevision(session: Session, deps: BridgeDeps): MonoTypeOperatorFunction<Frame> {
  return (frames$) =>
    new Observable<Frame>((subscriber) =>
      frames$.subscribe({
        next: (frame) => {
          const revision = session.revision;
          if (revision === NEWEST_CLIENT_REVISION) {
            subscriber.next(frame);
            return;
          }
          let shaped: Frame | undefined;
          try {
            shaped = downgradeFrame(frame, revision);
          } catch (error: unknown) {
            deps.logger.log(
              'bridge',
              'err',
              `dropped a frame for the client: the bridge failed on it (${errorName(error)})`,
            );
          }
          if (shaped !== undefined) subscriber.next(shaped);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
}
