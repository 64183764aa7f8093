/**
 * One forwarded client request (reference-behaviors.md §2.4, §3.3, §3.5, §3.6, §4): rounds,
 * progress with the client's token, time limits, cancellation, result shaping.
 */
import { Observable, Subject, of } from 'rxjs';
import type { Subscriber, Subscription } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import { driveInputRounds } from '../../operators/driveInputRounds.js';
import type { RoundOutput } from '../../operators/driveInputRounds.js';
import { buildUpstreamMeta, forwardParams } from '../codec/meta.js';
import { classifyResult, shapeResult } from '../codec/results.js';
import { ajvInputChecks } from '../codec/input/schemas.js';
import { toClientError } from '../codec/upstreamError.js';
import { BridgeError } from '../errors.js';
import { bridgeErrorFrame, formatDuration } from '../protocol/errors.js';
import type { Frame, JsonObject, JsonValue, RequestFrame } from '../protocol/jsonrpc.js';
import { errorResponse, isErrorResponse, isObject, notification, result } from '../protocol/jsonrpc.js';
import { carryRawResult } from '../protocol/rawResult.js';
import type { BridgeLimits } from './config.js';
import type { Logger } from './log.js';
import type { Deadline } from './deadlines.js';
import type { Abort, ClientContext, Session, Stop } from './session.js';
import { toErrorObject } from './session.js';
import type { ExchangeEvent, UpstreamConnection } from './upstream.js';

export const FORWARDED_METHODS: ReadonlySet<string> = new Set([
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
]);

/** Methods whose result may be `input_required` (protocol-mapping.md §4.2). */
const ROUND_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** The time limit of one upstream round (reference-behaviors.md §3.5). */
export function roundLimitMs(method: string, round: number, limits: BridgeLimits): number {
  if (method === 'tools/call') return limits.callTimeoutMs;
  if (method === 'prompts/get' || method === 'resources/read') {
    return round === 1 ? limits.readTimeoutMs : limits.inputTimeoutMs;
  }
  return limits.listTimeoutMs;
}

export interface ForwardContext {
  readonly session: Session;
  readonly client: ClientContext;
  readonly upstream: UpstreamConnection;
  readonly limits: BridgeLimits;
  readonly logger: Logger;
  readonly scheduler: SchedulerLike | undefined;
  /** The result-shaping codec step (BridgeDeps.shapeResult). */
  readonly shapeResult?: typeof shapeResult;
}

/**
 * Forwards one client request; its state (cancel reason, progress) lives per subscription.
 *
 * The steady-state path (issue 13, deliverable 1) is written by hand: one upstream exchange, its
 * deadline and slow-request line in the deadline queue of the session, the stop registered by id
 * in the session (no subscription to a session-wide subject). The round driver is entered only
 * when a result of `tools/call`, `prompts/get` or `resources/read` says `input_required`; it then
 * gets that first response as its round 1. The frames are those of the driver for every method
 * (reference-behaviors.md §2.10–§2.12, §3.5, §4).
 */
export function forwardRequest(ctx: ForwardContext, request: RequestFrame): Observable<Frame> {
  return new Observable<Frame>((subscriber) => runRequest(ctx, request, subscriber));
}

function runRequest(ctx: ForwardContext, request: RequestFrame, subscriber: Subscriber<Frame>): () => void {
  const { session, client, upstream, limits, scheduler } = ctx;
  const method = request.method;
  const clientMeta = request.params?.['_meta'];
  const progressToken: JsonValue | undefined = isObject(clientMeta) ? clientMeta['progressToken'] : undefined;
  const hasToken = typeof progressToken === 'string' || typeof progressToken === 'number';
  const base = forwardParams(request.params);
  let cancelReason = 'the client canceled the request';
  let waitingForClient = false;
  let lastProgress = -Infinity;
  let ended = false;
  /** The round-1 exchange, then the round driver once a result says `input_required`. */
  let current: Subscription | undefined;
  /** Only while the round driver runs: how a stop reaches it. */
  let driverStop$: Subject<Abort> | undefined;

  const exchange = (round: number, extras: JsonObject): Observable<ExchangeEvent> =>
    new Observable<ExchangeEvent>((events) => {
      waitingForClient = false;
      const limitMs = roundLimitMs(method, round, limits);
      // The level current at the start of each round is stamped (§5.7).
      const meta = buildUpstreamMeta(
        {
          clientInfo: client.info,
          clientCapabilities: client.upstreamCapabilities,
          ...(session.logLevel === undefined ? {} : { logLevel: session.logLevel }),
        },
        clientMeta,
      );
      // §3.5: progress never extends the limit; at the limit the exchange is unsubscribed, which
      // sends notifications/cancelled with the timeout reason.
      const deadline = session.deadlines.add(limitMs, () => {
        cancelReason = 'the request timed out';
        events.error(
          new BridgeError('timeout', { detail: `${method}: no response in ${formatDuration(limitMs)}` }),
        );
      });
      const inner = upstream
        .request(
          method,
          { ...base, ...extras, _meta: meta },
          { cancelReason: () => cancelReason, trace: { round, clientId: request.id } },
        )
        .subscribe(events);
      return () => {
        deadline.cancel();
        inner.unsubscribe();
      };
    });

  /** The frames of one output of the rounds for the client (§2.10: progress with its token only). */
  const emit = (output: RoundOutput): void => {
    switch (output.type) {
      case 'toClient':
        subscriber.next(output.frame);
        return;
      case 'progress': {
        const params = output.frame.params ?? {};
        const progress = params['progress'];
        // Only with the client's token (0 included), only while increasing across rounds (§2.10).
        if (!hasToken || typeof progress !== 'number' || progress <= lastProgress) return;
        lastProgress = progress;
        const forwarded: JsonObject = { progressToken, progress };
        if (params['total'] !== undefined) forwarded['total'] = params['total'];
        if (params['message'] !== undefined) forwarded['message'] = params['message'];
        subscriber.next(notification('notifications/progress', forwarded));
        return;
      }
      case 'error':
        subscriber.next(errorResponse(request.id, toClientError(output.error, method)));
        return;
      case 'result':
        subscriber.next(shape(ctx, request, output.result));
        return;
    }
  };
  /** A throw while handling an event fails this request alone (the caller answers it). */
  const emitGuarded = (output: RoundOutput): void => {
    try {
      emit(output);
    } catch (error: unknown) {
      subscriber.error(error);
    }
  };
  const finish = (): void => {
    ended = true;
    subscriber.complete();
  };

  const stop: Stop = (abort) => {
    if (ended) return;
    // Remembered before anything unsubscribes the upstream exchange: the reason goes upstream.
    cancelReason = abort.reason;
    if (driverStop$ !== undefined) {
      driverStop$.next(abort);
      return;
    }
    current?.unsubscribe();
    if (abort.error !== undefined) emit({ type: 'error', error: abort.error });
    finish();
  };

  const startRounds = (first: ExchangeEvent): void => {
    driverStop$ = new Subject<Abort>();
    const rounds$ = driveInputRounds(
      {
        method,
        maxRounds: limits.maxRounds,
        maxInputRequests: limits.maxInputRequests,
        inputTimeoutMs: limits.inputTimeoutMs,
        ...(scheduler === undefined ? {} : { scheduler }),
      },
      {
        // Round 1 already happened: its response opens the driver's first round.
        exchange: (round, extras) => (round === 1 ? of(first) : exchange(round, { ...extras })),
        answers$: session.answers$,
        nextBridgeId: () => {
          waitingForClient = true;
          return session.nextBridgeId();
        },
        nextElicitationId: session.nextElicitationId,
        clientCapabilities: client.capabilities,
        checks: ajvInputChecks,
        abort$: driverStop$,
        log: (level, text) =>
          ctx.logger.log('bridge', level, `request ${String(request.id)} (${method}): ${text}`),
      },
    );
    current = rounds$.subscribe({
      next: emitGuarded,
      error: (error: unknown) => subscriber.error(error),
      complete: finish,
    });
  };

  const onFirstRound = (event: ExchangeEvent): void => {
    if (event.type === 'notification') {
      if (event.frame.method === 'notifications/progress')
        emitGuarded({ type: 'progress', frame: event.frame });
      return;
    }
    const frame = event.frame;
    try {
      if (isErrorResponse(frame)) {
        emit({ type: 'error', error: frame.error });
      } else if (ROUND_METHODS.has(method) && frame.result['resultType'] === 'input_required') {
        // The round-1 exchange has its response: it ends here, with its deadline.
        const round1 = current;
        startRounds(event);
        round1?.unsubscribe();
        return;
      } else {
        emit({ type: 'result', result: frame.result });
      }
    } catch (error: unknown) {
      subscriber.error(error);
      return;
    }
    finish();
  };
  const onFirstRoundError = (error: unknown): void => {
    if (driverStop$ !== undefined) return;
    emitGuarded({ type: 'error', error: toErrorObject(error) });
    finish();
  };
  // An exchange that ends without a response ends the request without a frame.
  const onFirstRoundEnd = (): void => {
    if (driverStop$ === undefined) finish();
  };

  session.tasks += 1;
  const slow = slowLines(ctx, request, () => waitingForClient);
  session.track(request.id, stop);
  if (!ended) {
    const first = exchange(1, {}).subscribe({
      next: onFirstRound,
      error: onFirstRoundError,
      complete: onFirstRoundEnd,
    });
    // The round driver may have taken over already (a response in the same frame).
    if (driverStop$ === undefined) current = first;
  }
  return () => {
    ended = true;
    slow.cancel();
    session.untrack(request.id, stop);
    current?.unsubscribe();
    session.tasks -= 1;
    session.taskEnded$.next();
  };
}

/** Logs the slow-request lines while the work runs (reference-behaviors.md §2.12). */
function slowLines(ctx: ForwardContext, request: RequestFrame, waitingForClient: () => boolean): Deadline {
  const { slowFirstMs, slowEveryMs } = ctx.limits;
  let tick = 0;
  let next: Deadline;
  const line = (): void => {
    const seconds = Math.round((slowFirstMs + tick * slowEveryMs) / 1000);
    tick += 1;
    const what = waitingForClient()
      ? `still waiting for the answers of the client to the input requests of ${request.method}`
      : `still waiting for the upstream server: ${request.method}`;
    ctx.logger.log('bridge', 'info', `${what} (request ${String(request.id)}, ${seconds} s)`);
    next = ctx.session.deadlines.add(slowEveryMs, line);
  };
  next = ctx.session.deadlines.add(slowFirstMs, line);
  return { cancel: () => next.cancel() };
}

function shape(ctx: ForwardContext, request: RequestFrame, raw: JsonObject): Frame {
  const classified = classifyResult(request.method, raw);
  if (classified.kind === 'invalid') {
    ctx.logger.log(
      'bridge',
      'warn',
      `request ${String(request.id)} (${request.method}): the upstream result is not valid: ${classified.detail}`,
    );
    return bridgeErrorFrame(request.id, 'invalid_response');
  }
  if (classified.kind === 'input_required') return bridgeErrorFrame(request.id, 'invalid_response');
  const shaped = (ctx.shapeResult ?? shapeResult)(request.method, classified.result, {
    remote: ctx.upstream.remote,
    onItemsFixed: (tool, pointer) =>
      ctx.logger.log(
        'bridge',
        'info',
        `tool '${tool}': added an items schema at '${pointer}' of the input schema`,
      ),
  });
  if ('invalid' in shaped && typeof shaped.invalid === 'string') {
    ctx.logger.log(
      'bridge',
      'warn',
      `request ${String(request.id)} (${request.method}): the upstream result is not valid: ${shaped.invalid}`,
    );
    return bridgeErrorFrame(request.id, 'invalid_response');
  }
  // The shaped result carries the upstream's bytes of its unchanged members (issue 13, deliverable 3).
  return result(request.id, carryRawResult(classified.result, shaped));
}
