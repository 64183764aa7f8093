/**
 * One forwarded client request (reference-behaviors.md §2.4, §3.3, §3.5, §3.6, §4): rounds,
 * progress with the client's token, time limits, cancellation, result shaping.
 */
import {
  EMPTY,
  Observable,
  catchError,
  defer,
  filter,
  map,
  merge,
  mergeMap,
  of,
  share,
  take,
  takeUntil,
  takeWhile,
  tap,
  timer,
} from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import { driveInputRounds } from '../../operators/driveInputRounds.js';
import type { RoundOutput } from '../../operators/driveInputRounds.js';
import { withDeadline } from '../../operators/withDeadline.js';
import { buildUpstreamMeta, forwardParams } from '../codec/meta.js';
import { classifyResult, shapeResult } from '../codec/results.js';
import { ajvInputChecks } from '../codec/input/schemas.js';
import { toClientError } from '../codec/upstreamError.js';
import { BridgeError } from '../errors.js';
import { bridgeErrorFrame, formatDuration } from '../protocol/errors.js';
import type { Frame, JsonObject, JsonValue, RequestFrame } from '../protocol/jsonrpc.js';
import { errorResponse, isErrorResponse, isObject, notification, result } from '../protocol/jsonrpc.js';
import type { BridgeLimits } from './config.js';
import type { Logger } from './log.js';
import type { Abort, ClientContext, Session } from './session.js';
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

/** A single exchange as round outputs, for methods without input rounds. */
function singleRound(exchange$: Observable<ExchangeEvent>): Observable<RoundOutput> {
  return exchange$.pipe(
    mergeMap((event): Observable<RoundOutput> => {
      if (event.type === 'notification') {
        return event.frame.method === 'notifications/progress'
          ? of({ type: 'progress', frame: event.frame })
          : EMPTY;
      }
      const frame = event.frame;
      return of(
        isErrorResponse(frame)
          ? { type: 'error', error: frame.error }
          : { type: 'result', result: frame.result },
      );
    }),
    catchError((error: unknown) => of<RoundOutput>({ type: 'error', error: toErrorObject(error) })),
  );
}

/** Logs the slow-request lines while the work runs (reference-behaviors.md §2.12). */
function slowLines(
  ctx: ForwardContext,
  request: RequestFrame,
  waitingForClient: () => boolean,
): Observable<never> {
  const { slowFirstMs, slowEveryMs } = ctx.limits;
  return timer(slowFirstMs, slowEveryMs, ctx.scheduler).pipe(
    mergeMap((tick) => {
      const seconds = Math.round((slowFirstMs + tick * slowEveryMs) / 1000);
      const what = waitingForClient()
        ? `still waiting for the answers of the client to the input requests of ${request.method}`
        : `still waiting for the upstream server: ${request.method}`;
      ctx.logger.log('bridge', 'info', `${what} (request ${String(request.id)}, ${seconds} s)`);
      return EMPTY;
    }),
  );
}

/** Forwards one client request; its state (cancel reason, progress) lives per subscription. */
export function forwardRequest(ctx: ForwardContext, request: RequestFrame): Observable<Frame> {
  return defer(() => runRequest(ctx, request));
}

function runRequest(ctx: ForwardContext, request: RequestFrame): Observable<Frame> {
  const { session, client, upstream, limits, scheduler } = ctx;
  const method = request.method;
  const clientMeta = request.params?.['_meta'];
  const progressToken: JsonValue | undefined = isObject(clientMeta) ? clientMeta['progressToken'] : undefined;
  const hasToken = typeof progressToken === 'string' || typeof progressToken === 'number';
  const base = forwardParams(request.params);
  let cancelReason = 'the client canceled the request';
  let waitingForClient = false;

  const abort$: Observable<Abort> = merge(
    session.cancels$.pipe(
      filter((id) => id === request.id),
      map((): Abort => ({ reason: 'the client canceled the request' })),
    ),
    session.abortAll$,
  ).pipe(take(1));

  const exchange = (round: number, extras: JsonObject): Observable<ExchangeEvent> => {
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
    return upstream
      .request(
        method,
        { ...base, ...extras, _meta: meta },
        { cancelReason: () => cancelReason, trace: { round, clientId: request.id } },
      )
      .pipe(
        withDeadline({
          limitMs,
          scheduler,
          error: () => {
            cancelReason = 'the request timed out';
            return new BridgeError('timeout', {
              detail: `${method}: no response in ${formatDuration(limitMs)}`,
            });
          },
        }),
      );
  };

  // Remember why the request stopped before anything unsubscribes the upstream exchange.
  const stop$ = abort$.pipe(
    tap((abort) => (cancelReason = abort.reason)),
    share(),
  );

  const rounds$: Observable<RoundOutput> = ROUND_METHODS.has(method)
    ? driveInputRounds(
        {
          method,
          maxRounds: limits.maxRounds,
          maxInputRequests: limits.maxInputRequests,
          inputTimeoutMs: limits.inputTimeoutMs,
          ...(scheduler === undefined ? {} : { scheduler }),
        },
        {
          exchange: (round, extras) => exchange(round, { ...extras }),
          answers$: session.answers$,
          nextBridgeId: () => {
            waitingForClient = true;
            return session.nextBridgeId();
          },
          nextElicitationId: session.nextElicitationId,
          clientCapabilities: client.capabilities,
          checks: ajvInputChecks,
          abort$: stop$,
          log: (level, text) =>
            ctx.logger.log('bridge', level, `request ${String(request.id)} (${method}): ${text}`),
        },
      )
    : merge(
        singleRound(exchange(1, {})).pipe(takeUntil(stop$)),
        stop$.pipe(
          mergeMap((abort): Observable<RoundOutput> =>
            abort.error === undefined ? EMPTY : of({ type: 'error', error: abort.error }),
          ),
        ),
      ).pipe(takeWhile((output) => output.type !== 'result' && output.type !== 'error', true));

  let lastProgress = -Infinity;
  const toClient = (output: RoundOutput): Frame[] => {
    switch (output.type) {
      case 'toClient':
        return [output.frame];
      case 'progress': {
        const params = output.frame.params ?? {};
        const progress = params['progress'];
        // Only with the client's token (0 included), only while increasing across rounds (§2.10).
        if (!hasToken || typeof progress !== 'number' || progress <= lastProgress) return [];
        lastProgress = progress;
        const forwarded: JsonObject = { progressToken, progress };
        if (params['total'] !== undefined) forwarded['total'] = params['total'];
        if (params['message'] !== undefined) forwarded['message'] = params['message'];
        return [notification('notifications/progress', forwarded)];
      }
      case 'error':
        return [errorResponse(request.id, toClientError(output.error))];
      case 'result':
        return [shape(ctx, request, output.result)];
    }
  };

  const work$ = rounds$.pipe(mergeMap((output) => toClient(output)));
  return new Observable<Frame>((subscriber) => {
    session.tasks += 1;
    const subscription = work$.subscribe(subscriber);
    subscription.add(slowLines(ctx, request, () => waitingForClient).subscribe());
    return () => {
      subscription.unsubscribe();
      session.tasks -= 1;
      session.taskEnded$.next();
    };
  });
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
  return result(request.id, shaped);
}
