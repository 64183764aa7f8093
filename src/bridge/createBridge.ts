/**
 * The composition root of the VS Code front end: client frames in, client frames out
 * (docs/architecture.md#architecture-data-flow). One subscription is one client connection.
 */
import type { OperatorFunction, Observable } from 'rxjs';
import {
  EMPTY,
  Subject,
  concat,
  defer,
  finalize,
  identity,
  map,
  merge,
  of,
  take,
  takeUntil,
  tap,
  throwError,
} from 'rxjs';
import { limitInFlight } from '../../operators/limitInFlight.js';
import { BridgeError } from '../protocol/bridgeError.js';
import { errorName } from '../ports/causeOf.js';
import { CLIENT_CLOSED_REASON } from '../protocol/cancelReasons.js';
import { bridgeErrorFrame } from '../protocol/errors.js';
import type { Frame, NotificationFrame, RequestId } from '../protocol/jsonrpc.js';
import { isNotification, isRequest } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';
import { takesInFlightPlace } from '../ports/inFlight.js';
import type { RoutedFrame } from '../ports/routedFrame.js';
import type { BridgeConfig, BridgeDeps } from './config.js';
import { sessionConsent } from './consent.js';
import { graceStop } from './graceStop.js';
import { createDispatcher } from './dispatch.js';
import { createListenerSlot, startListener } from './listener.js';
import type { Session } from './session.js';
import { createSession } from './session.js';
import { sessionUpstream } from './sessionUpstream.js';
import { connectionTelemetry } from './requestTelemetry.js';
import type { UpstreamConnection } from '../ports/upstream.js';
import { forRevision, logMessages, noUrlElicitation, upstreamExit } from './sessionBackground.js';

/** Requests that run as tasks and take a place of the in-flight limit (docs/requests.md#requests-in-flight). */
function isTask(session: Session, inbound: Inbound): boolean {
  return takesInFlightPlace(inbound) && session.phase !== 'closing';
}

/**
 * A client line whose handling threw or failed (a bug in shaping a result, building a frame, a
 * codec step): a request gets -32603 with cause `internal` and a log line with its id and
 * method; anything else is logged and dropped. The session goes on.
 */
function failedAlone(deps: BridgeDeps, inbound: Inbound, error: unknown): Observable<Frame> {
  // limitInFlight ends a task whose `failed` throws without a reply: a throwing logger must not
  // cost the request its error frame, so the lines are written best-effort.
  const say = (level: 'err' | 'debug', text: string): void => {
    try {
      deps.logger.log('bridge', level, text);
    } catch {
      // nothing left to tell it with
    }
  };
  const frame = inbound.kind === 'frame' ? inbound.frame : undefined;
  let stack: string | undefined;
  try {
    stack = error instanceof Error && deps.logger.enabled('debug') ? error.stack : undefined;
  } catch {
    stack = undefined;
  }
  if (frame !== undefined && isRequest(frame)) {
    say(
      'err',
      `request ${String(frame.id)} (${frame.method}) failed inside the bridge (${errorName(error)}); the connection goes on`,
    );
    if (stack !== undefined) say('debug', stack);
    return of(bridgeErrorFrame(frame.id, 'internal'));
  }
  const what = frame !== undefined && isNotification(frame) ? `the notification ${frame.method}` : 'a line';
  say('err', `dropped ${what} of the client: the bridge failed on it (${errorName(error)})`);
  if (stack !== undefined) say('debug', stack);
  return EMPTY;
}

/** The bridge: an operator from decoded client lines to the frames for the client (one client connection per subscription; docs/lifecycle.md#lifecycle-states). */
export function createBridge(
  config: BridgeConfig,
  deps: BridgeDeps,
): (clientIn$: Observable<Inbound>) => Observable<Frame> {
  return bridgeOf<Frame>(config, deps, undefined);
}

/**
 * The bridge whose frames carry their origin (RoutedFrame): the id of the client request whose
 * handling made each one, for a consumer that routes by request, such as the HTTP front end
 * (docs/serve.md#serve-routing).
 */
export function createRoutedBridge(
  config: BridgeConfig,
  deps: BridgeDeps,
): (clientIn$: Observable<Inbound>) => Observable<RoutedFrame> {
  return bridgeOf<RoutedFrame>(config, deps, (frame, origin) => ({ frame, origin }));
}

/** How a frame leaves the bridge with its origin; undefined: as it is (createBridge). */
type Tag<T> = (frame: Frame, origin: RequestId | undefined) => T;

/** The one body of createBridge and createRoutedBridge. */
function bridgeOf<T>(
  config: BridgeConfig,
  deps: BridgeDeps,
  tag: Tag<T> | undefined,
): (clientIn$: Observable<Inbound>) => Observable<T> {
  // Without a tag the frames leave as they are (T is Frame): no step per frame.
  const mark = (origin: RequestId | undefined): OperatorFunction<Frame, T> =>
    tag === undefined ? (identity as OperatorFunction<Frame, T>) : map((frame) => tag(frame, origin));
  // The frames of one client line, marked with its origin. Without a tag, as they are: no
  // `pipe` and no origin per line either (every forwarded call passes here, bench/README.md).
  const marked = (frames$: Observable<Frame>, inbound: Inbound): Observable<T> =>
    tag === undefined ? (frames$ as Observable<T>) : frames$.pipe(mark(requestIdOf(inbound)));
  const scheduler = deps.scheduler;
  return (clientIn$) =>
    defer(() => {
      const session = createSession(scheduler);
      // Frames the sign-in sends on its own: URL elicitations, their cancels and completions.
      const signInFrames$ = new Subject<Frame>();
      // The log messages of this connection's exchanges (sessionUpstream.ts).
      const ownLogs$ = new Subject<NotificationFrame>();
      const consent =
        deps.consent === undefined
          ? undefined
          : sessionConsent(session, (frame) => signInFrames$.next(frame), deps.logger);
      const unbind = consent === undefined ? undefined : deps.consent?.bind(consent);
      // The connection's view of the upstream: its sign-in asks this client, its log messages
      // reach this client (docs/serve.md#serve-routing).
      // Telemetry (docs/observability.md): absent unless the environment turned it on.
      const telemetry =
        deps.telemetry === undefined
          ? undefined
          : connectionTelemetry(deps.telemetry, () => session.revision);
      const connect = (): Observable<UpstreamConnection> =>
        deps
          .connect()
          .pipe(
            map((upstream) =>
              sessionUpstream(upstream, consent, (frame) => ownLogs$.next(frame), telemetry?.round),
            ),
          );
      const listener = createListenerSlot();
      const dispatcher = createDispatcher({
        session,
        config,
        deps: { ...deps, connect },
        scheduler,
        listener,
      });
      const dispatch = telemetry === undefined ? dispatcher : telemetry.traced(dispatcher);
      const ended$ = session.aborted$.pipe(take(1));
      let upstreamGone = false;

      const main$ = clientIn$.pipe(
        // docs/lifecycle.md#lifecycle-end-of-input: the end of input cancels everything in flight; the rest may then finish.
        tap({ complete: () => session.abortAll({ reason: CLIENT_CLOSED_REASON }) }),
        limitInFlight(
          {
            maxInFlight: config.limits.maxInFlight,
            counts: (inbound) => isTask(session, inbound),
            // A failure inside one request is that request's -32603, nothing more (docs/errors.md#error-internal).
            failed: (inbound, error) => marked(failedAlone(deps, inbound, error), inbound),
          },
          (inbound) => marked(dispatch(inbound), inbound),
          (inbound) => {
            // docs/observability.md#observability-metrics: counted by the limit's name.
            deps.telemetry?.limitRefused?.('max_in_flight');
            return marked(
              of(
                bridgeErrorFrame(
                  inbound.kind === 'frame' && 'id' in inbound.frame ? inbound.frame.id : null,
                  'too_many_requests',
                ),
              ),
              inbound,
            );
          },
        ),
      );

      const background$ = merge(
        logMessages(session, deps, ownLogs$),
        startListener({
          session,
          deps,
          limits: config.limits,
          scheduler,
          signIn$: deps.signIn$,
          slot: listener,
        }),
        upstreamExit(session, deps),
        deps.consent === undefined ? EMPTY : noUrlElicitation(session, deps),
        // A Subject never completes by itself: it ends with the session, or the end of input
        // would wait for the whole grace period (docs/lifecycle.md#lifecycle-end-of-input).
        signInFrames$,
      ).pipe(forRevision(session, deps), mark(undefined), takeUntil(ended$));

      // At the end of input, running work gets the grace period; after an upstream loss the
      // bridge stops as soon as no task runs, at the latest after the grace (docs/lifecycle.md#lifecycle-end-of-input, docs/lifecycle.md#lifecycle-upstream-loss).
      const cut$ = ended$.pipe(
        tap((abort) => (upstreamGone = abort.error !== undefined)),
        graceStop({
          graceMs: config.limits.shutdownGraceMs,
          scheduler,
          idle: () => (upstreamGone ? session.idle() : undefined),
        }),
      );

      return concat(
        merge(main$, background$).pipe(takeUntil(cut$)),
        defer(() => (upstreamGone ? throwError(() => new BridgeError('upstream_exited')) : EMPTY)),
      ).pipe(
        finalize(() => {
          unbind?.();
          session.dispose();
        }),
      );
    });
}

/** The id of a client request, the origin of the frames its handling makes; undefined for anything else. */
function requestIdOf(inbound: Inbound): RequestId | undefined {
  return inbound.kind === 'frame' && isRequest(inbound.frame) ? inbound.frame.id : undefined;
}
