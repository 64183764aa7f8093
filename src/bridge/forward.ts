/**
 * One forwarded client request (reference-behaviors.md §2.4, §3.3, §3.5, §3.6, §4): its round 1,
 * progress with the client's token, time limits, cancellation; the hand-over to the round driver
 * (forwardRounds.ts) and the frames for the client (forwardShape.ts).
 */
import { Observable, Subject } from 'rxjs';
import type { Subscriber, Subscription } from 'rxjs';
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
import type { ExchangeEvent, ExchangeOptions } from './upstream.js';

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
  current: Subscription | undefined;
  /** The time limit of round 1, until its response or the hand-over. */
  deadline: Deadline | undefined;
  /** Only while the round driver runs: how a stop reaches it. */
  driverStop$: Subject<Abort> | undefined;
}

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
    run.driverStop$ = new Subject<Abort>();
    try {
      run.current = startRounds(run, event, run.driverStop$);
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
    driverStop$: undefined,
    emitGuarded: (output) => emitGuarded(run, output),
    fail: (error) => subscriber.error(error),
    finish: () => finish(run),
  };
  const stop: Stop = (abort) => stopRun(run, abort);

  session.tasks += 1;
  const slow = slowLines(run);
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
    slow.cancel();
    run.deadline?.cancel();
    session.untrack(request.id, stop);
    run.current?.unsubscribe();
    session.tasks -= 1;
    session.taskEnded$.next();
  };
}

/**
 * Round 1, subscribed directly (no exchange observable around it). §3.5: progress never extends
 * the limit; at the limit the exchange is unsubscribed, which sends notifications/cancelled with
 * the timeout reason.
 */
function startFirstRound(run: Run): void {
  const { session, upstream, limits } = run.ctx;
  const request = run.request;
  const method = request.method;
  const limitMs = roundLimitMs(method, 1, limits);
  const params = upstreamParams(request.params, roundMeta(run));
  run.deadline = session.deadlines.add(limitMs, () => {
    run.deadline = undefined;
    run.cancelReason = 'the request timed out';
    onFirstRoundError(
      run,
      new BridgeError('timeout', { detail: `${method}: no response in ${formatDuration(limitMs)}` }),
    );
  });
  const options: ExchangeOptions = {
    cancelReason: () => run.cancelReason,
    trace: { round: 1, clientId: request.id },
  };
  const first = upstream.request(method, params, options).subscribe({
    next: (event) => onFirstRound(run, event),
    error: (error: unknown) => onFirstRoundError(run, error),
    // An exchange that ends without a response ends the request without a frame.
    complete: () => {
      if (run.driverStop$ === undefined) finish(run);
    },
  });
  // The round driver may have taken over already (a response in the same frame).
  if (run.driverStop$ === undefined) run.current = first;
}

/** Logs the slow-request lines while the work runs (reference-behaviors.md §2.12). */
function slowLines(run: Run): Deadline {
  const { session, limits, logger } = run.ctx;
  const { slowFirstMs, slowEveryMs } = limits;
  const request = run.request;
  let tick = 0;
  let next: Deadline;
  const line = (): void => {
    const seconds = Math.round((slowFirstMs + tick * slowEveryMs) / 1000);
    tick += 1;
    const what = run.waitingForClient
      ? `still waiting for the answers of the client to the input requests of ${request.method}`
      : `still waiting for the upstream server: ${request.method}`;
    logger.log('bridge', 'info', `${what} (request ${String(request.id)}, ${seconds} s)`);
    next = session.deadlines.add(slowEveryMs, line);
  };
  next = session.deadlines.add(slowFirstMs, line);
  return { cancel: () => next.cancel() };
}
