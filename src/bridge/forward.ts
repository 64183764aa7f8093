/**
 * One forwarded client request (reference-behaviors.md §2.4, §3.3, §3.5, §3.6, §4): its round 1,
 * progress with the client's token, time limits, cancellation; the hand-over to the round driver
 * (forwardRounds.ts) and the frames for the client (forwardShape.ts).
 */
import { Observable, Subject } from 'rxjs';
import type { Subscriber, Unsubscribable } from 'rxjs';
import type { RoundOutput } from '../../operators/driveInputRounds.js';
import { upstreamParams } from '../codec/meta.js';
import { BridgeError } from '../errors.js';
import { formatDuration } from '../protocol/errors.js';
import type { Frame, JsonValue, RequestFrame } from '../protocol/jsonrpc.js';
import { isErrorResponse, isObject } from '../protocol/jsonrpc.js';
import type { Deadline } from './deadlines.js';
import { outputFrame } from './forwardShape.js';
import type { ForwardContext, ProgressState } from './forwardShape.js';
import { roundLimitMs, roundMeta, startRounds } from './forwardRounds.js';
import type { RoundHost } from './forwardRounds.js';
import type { Abort, Stop } from './session.js';
import { toErrorObject } from './session.js';
import type { ExchangeEvent, ExchangeOptions, ExchangeSink } from './upstream.js';

export type { ForwardContext } from './forwardShape.js';
export { shapeOptions } from './forwardShape.js';
export { roundLimitMs } from './forwardRounds.js';

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

/** The state of one forwarded request: its rounds' host, its progress, its current work. */
interface Run extends RoundHost, ProgressState {
  readonly subscriber: Subscriber<Frame>;
  ended: boolean;
  /** The round-1 exchange, then the round driver once a result says `input_required`. */
  current: Unsubscribable | undefined;
  /** The time limit of round 1, until its response or the hand-over. */
  deadline: Deadline | undefined;
  /** The next slow-request line (§2.12) and how many were logged. */
  slow: Deadline | undefined;
  slowTicks: number;
  /**
   * When round 1's limit is longer than the wait for the first slow-request line, one deadline
   * does both (one entry and one clock read per request, issue 13): the first line's entry arms
   * the rest of the limit, this many ms, if round 1 still runs then.
   */
  limitAfterSlow: number | undefined;
  /** Only while the round driver runs: how a stop reaches it. */
  driverStop$: Subject<Abort> | undefined;
}

/**
 * The round-1 exchange's sink and options in one object, whose functions are shared by all
 * requests and read the request from `this` (the exchange calls them as methods): the steady
 * path makes no closure for them (issue 13, fewer objects per call).
 */
interface FirstRound extends ExchangeSink, ExchangeOptions {
  readonly run: Run;
  cancelReason(this: FirstRound): string;
}

function firstRoundNext(this: FirstRound, event: ExchangeEvent): void {
  onFirstRound(this.run, event);
}
function firstRoundError(this: FirstRound, error: unknown): void {
  onFirstRoundError(this.run, error);
}
/** An exchange that ends without a response ends the request without a frame. */
function firstRoundComplete(this: FirstRound): void {
  if (this.run.driverStop$ === undefined) finish(this.run);
}
function firstRoundCancelReason(this: FirstRound): string {
  return this.run.cancelReason;
}

/** RoundHost's functions before the hand-over: the round driver is the only caller (asRoundHost). */
const notHandedOver = (): never => {
  throw new Error('the round driver has not started');
};

/**
 * Forwards one client request; its state (cancel reason, progress) lives per subscription.
 *
 * The steady-state path (issue 13, deliverable 1) is written by hand: one upstream exchange
 * subscribed directly, its deadline and slow-request line in the deadline queue of the session,
 * the stop registered by id in the session (no subscription to a session-wide subject), the
 * state of the request in one object. The round driver is entered only when a result of
 * `tools/call`, `prompts/get` or `resources/read` says `input_required`; it then gets that first
 * response as its round 1. The frames are those of the driver for every method
 * (reference-behaviors.md §2.10–§2.12, §3.5, §4).
 */
export function forwardRequest(ctx: ForwardContext, request: RequestFrame): Observable<Frame> {
  return new Observable<Frame>((subscriber) => runRequest(ctx, request, subscriber));
}

/** The frame of one output for the client, if any. */
function emit(run: Run, output: RoundOutput): void {
  const frame = outputFrame(run.ctx, run.request, run, output);
  if (frame !== undefined) run.subscriber.next(frame);
}

/** A throw while making a frame fails this request alone (the caller answers it). */
function emitGuarded(run: Run, output: RoundOutput): void {
  try {
    emit(run, output);
  } catch (error: unknown) {
    run.subscriber.error(error);
  }
}

function finish(run: Run): void {
  run.ended = true;
  run.subscriber.complete();
}

/** A client cancel, the end of input or the loss of the upstream (session.track). */
function stopRun(run: Run, abort: Abort): void {
  if (run.ended) return;
  // Remembered before anything unsubscribes the upstream exchange: the reason goes upstream.
  run.cancelReason = abort.reason;
  if (run.driverStop$ !== undefined) {
    run.driverStop$.next(abort);
    return;
  }
  run.deadline?.cancel();
  run.current?.unsubscribe();
  if (abort.error !== undefined) emit(run, { type: 'error', error: abort.error });
  finish(run);
}

/** An event of the round-1 exchange: progress, or the response that ends or hands over the request. */
function onFirstRound(run: Run, event: ExchangeEvent): void {
  if (event.type === 'notification') {
    if (event.frame.method === 'notifications/progress')
      emitGuarded(run, { type: 'progress', frame: event.frame });
    return;
  }
  const frame = event.frame;
  const method = run.request.method;
  if (
    !isErrorResponse(frame) &&
    ROUND_METHODS.has(method) &&
    frame.result['resultType'] === 'input_required'
  ) {
    // The round-1 exchange has its response: it ends here, with its deadline.
    const round1 = run.current;
    run.deadline?.cancel();
    run.deadline = undefined;
    run.limitAfterSlow = undefined;
    run.driverStop$ = new Subject<Abort>();
    try {
      run.current = startRounds(asRoundHost(run), event, run.driverStop$);
    } catch (error: unknown) {
      run.subscriber.error(error);
      return;
    }
    round1?.unsubscribe();
    return;
  }
  try {
    emit(
      run,
      isErrorResponse(frame)
        ? { type: 'error', error: frame.error }
        : { type: 'result', result: frame.result },
    );
  } catch (error: unknown) {
    run.subscriber.error(error);
    return;
  }
  finish(run);
}

function onFirstRoundError(run: Run, error: unknown): void {
  if (run.driverStop$ !== undefined) return;
  emitGuarded(run, { type: 'error', error: toErrorObject(error) });
  finish(run);
}

/** The request as the round driver's host: its functions are made only when the driver starts. */
function asRoundHost(run: Run): RoundHost {
  run.emitGuarded = (output) => emitGuarded(run, output);
  run.fail = (error) => run.subscriber.error(error);
  run.finish = () => finish(run);
  return run;
}

function runRequest(ctx: ForwardContext, request: RequestFrame, subscriber: Subscriber<Frame>): () => void {
  const session = ctx.session;
  const clientMeta = request.params?.['_meta'];
  const progressToken: JsonValue | undefined = isObject(clientMeta) ? clientMeta['progressToken'] : undefined;
  const run: Run = {
    ctx,
    request,
    subscriber,
    progressToken,
    lastProgress: -Infinity,
    cancelReason: 'the client canceled the request',
    waitingForClient: false,
    ended: false,
    current: undefined,
    deadline: undefined,
    slow: undefined,
    slowTicks: 0,
    limitAfterSlow: undefined,
    driverStop$: undefined,
    emitGuarded: notHandedOver,
    fail: notHandedOver,
    finish: notHandedOver,
  };
  const stop: Stop = (abort) => stopRun(run, abort);

  session.tasks += 1;
  const { slowFirstMs } = ctx.limits;
  const limitMs = roundLimitMs(request.method, 1, ctx.limits);
  if (limitMs > slowFirstMs) {
    run.limitAfterSlow = limitMs - slowFirstMs;
    run.slow = session.deadlines.add(slowFirstMs, firstSlowLine, run);
  } else {
    run.slow = session.deadlines.add(slowFirstMs, slowLine, run);
  }
  session.track(request.id, stop);
  if (!run.ended) {
    try {
      startFirstRound(run);
    } catch (error: unknown) {
      // As a failure of the exchange: this request's error frame (§3.6).
      onFirstRoundError(run, error);
    }
  }
  return () => {
    run.ended = true;
    run.slow?.cancel();
    run.deadline?.cancel();
    session.untrack(request.id, stop);
    run.current?.unsubscribe();
    session.tasks -= 1;
    // A Subject's next costs even without observers; only the stop after an upstream loss listens.
    if (session.taskEnded$.observed) session.taskEnded$.next();
  };
}

/** §3.5: round 1 got no response in its time limit. */
function firstRoundTimeout(run: Run): void {
  // The round driver has its own limits once round 1 handed over.
  if (run.driverStop$ !== undefined) return;
  const method = run.request.method;
  const limitMs = roundLimitMs(method, 1, run.ctx.limits);
  run.deadline = undefined;
  run.cancelReason = 'the request timed out';
  onFirstRoundError(
    run,
    new BridgeError('timeout', { detail: `${method}: no response in ${formatDuration(limitMs)}` }),
  );
}

/**
 * Round 1, subscribed directly (no exchange observable around it where the connection has
 * `exchange`). §3.5: progress never extends the limit; at the limit the exchange is
 * unsubscribed, which sends notifications/cancelled with the timeout reason.
 */
function startFirstRound(run: Run): void {
  const { session, upstream, limits } = run.ctx;
  const request = run.request;
  const method = request.method;
  const params = upstreamParams(request.params, roundMeta(run));
  // A limit longer than the first slow line's wait is armed by that line (Run.limitAfterSlow).
  if (run.limitAfterSlow === undefined)
    run.deadline = session.deadlines.add(roundLimitMs(method, 1, limits), firstRoundTimeout, run);
  const io: FirstRound = {
    run,
    next: firstRoundNext,
    error: firstRoundError,
    complete: firstRoundComplete,
    cancelReason: firstRoundCancelReason,
    trace: { round: 1, clientId: request.id },
    // Made above for this exchange alone: the connection may set its progress token in place.
    fresh: true,
  };
  const first =
    upstream.exchange === undefined
      ? upstream.request(method, params, io).subscribe(io)
      : upstream.exchange(method, params, io, io);
  // The round driver may have taken over already (a response in the same frame).
  if (run.driverStop$ === undefined) run.current = first;
}

/** One slow-request line while the work runs, then the next one (reference-behaviors.md §2.12). */
function slowLine(run: Run): void {
  const { session, limits, logger } = run.ctx;
  const { slowFirstMs, slowEveryMs } = limits;
  const request = run.request;
  const seconds = Math.round((slowFirstMs + run.slowTicks * slowEveryMs) / 1000);
  run.slowTicks += 1;
  const what = run.waitingForClient
    ? `still waiting for the answers of the client to the input requests of ${request.method}`
    : `still waiting for the upstream server: ${request.method}`;
  logger.log('bridge', 'info', `${what} (request ${String(request.id)}, ${seconds} s)`);
  run.slow = session.deadlines.add(slowEveryMs, slowLine, run);
}

/**
 * The first slow-request line of a request whose round-1 limit is longer: then the rest of that
 * limit, while round 1 still runs (§3.5: the limit counts from the start of the request).
 */
function firstSlowLine(run: Run): void {
  const left = run.limitAfterSlow;
  run.limitAfterSlow = undefined;
  slowLine(run);
  if (left !== undefined && !run.ended)
    run.deadline = run.ctx.session.deadlines.add(left, firstRoundTimeout, run);
}
