/**
 * Round 1 of a forwarded request (docs/requests.md#requests-meta, docs/requests.md#requests-deadlines, docs/results.md#results-shape): one upstream exchange
 * subscribed directly, its time limit, its progress, and its response, which either ends the
 * request or, when a result of `tools/call`, `prompts/get` or `resources/read` says
 * `input_required`, hands the request over to the round driver (forwardRounds.ts).
 */
import { Subject } from 'rxjs';
import { upstreamParams } from '../codec/meta.js';
import { BridgeError } from '../protocol/bridgeError.js';
import { formatDuration } from '../protocol/errors.js';
import { isErrorResponse } from '../protocol/jsonrpc.js';
import { roundLimitMs, roundMeta, startRounds } from './forwardRounds.js';
import { asRoundHost, emit, emitGuarded, finish } from './forwardRun.js';
import type { Run } from './forwardRun.js';
import type { Abort } from './session.js';
import { toErrorObject } from './session.js';
import type { ExchangeEvent, ExchangeOptions, ExchangeSink } from '../ports/upstream.js';

/** Methods whose result may be `input_required` (docs/input-rounds.md#input-which-requests). */
const ROUND_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * The round-1 exchange's sink and options in one object, whose functions are shared by all
 * requests and read the request from `this` (the exchange calls them as methods): the steady
 * path makes no closure for them (fewer objects per call).
 */
interface FirstRound extends ExchangeSink, ExchangeOptions {
  readonly run: Run;
  cancelReason(this: FirstRound): string;
}

function firstRoundNext(this: FirstRound, event: ExchangeEvent): void {
  onFirstRound(this.run, event);
}
function firstRoundError(this: FirstRound, error: unknown): void {
  failFirstRound(this.run, error);
}
/** An exchange that ends without a response ends the request without a frame. */
function firstRoundComplete(this: FirstRound): void {
  if (this.run.driverStop$ === undefined) finish(this.run);
}
function firstRoundCancelReason(this: FirstRound): string {
  return this.run.cancelReason;
}

/**
 * Round 1, subscribed directly (no exchange observable around it where the connection has
 * `exchange`). docs/requests.md#requests-deadlines: progress never extends the limit; at the limit the exchange is
 * unsubscribed, which sends notifications/cancelled with the timeout reason.
 */
export function startFirstRound(run: Run): void {
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
  const first = upstream.request(method, params, io).subscribe(io);
  // The round driver may have taken over already (a response in the same frame).
  if (run.driverStop$ === undefined) run.current = first;
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

/** Round 1 failed (docs/results.md#results-shape): this request's error frame, unless the round driver took over. */
export function failFirstRound(run: Run, error: unknown): void {
  if (run.driverStop$ !== undefined) return;
  emitGuarded(run, { type: 'error', error: toErrorObject(error) });
  finish(run);
}

/** docs/requests.md#requests-deadlines: round 1 got no response in its time limit. */
export function firstRoundTimeout(run: Run): void {
  // The round driver has its own limits once round 1 handed over.
  if (run.driverStop$ !== undefined) return;
  const method = run.request.method;
  const limitMs = roundLimitMs(method, 1, run.ctx.limits);
  run.deadline = undefined;
  run.cancelReason = 'the request timed out';
  failFirstRound(
    run,
    new BridgeError('timeout', { detail: `${method}: no response in ${formatDuration(limitMs)}` }),
  );
}
