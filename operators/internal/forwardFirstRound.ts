/**
 * Round 1 of forwardRequest (rules 1-8 and 12 in ../forwardRequest.ts): one upstream exchange
 * subscribed with the request's own sink, its limit (timeLimit.ts), its progress, and its
 * response, which either ends the request or, when a result of `tools/call`, `prompts/get` or
 * `resources/read` says `input_required`, hands it over to the input rounds (forwardRounds.ts).
 */
import { upstreamParams } from '../../src/codec/meta.js';
import { clientProgress } from '../../src/codec/progress.js';
import { errorOfThrown } from '../../src/codec/input/index.js';
import type { ExchangeEvent, ExchangeOptions } from '../../src/ports/upstream.js';
import { TIMEOUT_REASON } from '../../src/protocol/cancelReasons.js';
import { isErrorResponse } from '../../src/protocol/jsonrpc.js';
import type { Run } from './forwardState.js';
import { emitGuarded, finish } from './forwardState.js';
import { roundLimitMs, timeoutError } from './roundLimit.js';
import { handOver } from './forwardRounds.js';
import { armLimit } from './timeLimit.js';
import type { LimitedWork } from './timeLimit.js';

/** Methods whose result may be `input_required` (docs/input-rounds.md#input-which-requests). */
const ROUND_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * Round 1's sink, options and limit in one object, whose functions are shared by all requests
 * and read the request from `this` (the exchange and the limit call them as methods): the
 * steady path makes no closure for them.
 */
export interface FirstRound extends ExchangeOptions, LimitedWork {
  readonly run: Run;
  next(this: FirstRound, event: ExchangeEvent): void;
  error(this: FirstRound, error: unknown): void;
  complete(this: FirstRound): void;
  readonly cancelReason: () => string;
}

function firstNext(this: FirstRound, event: ExchangeEvent): void {
  onFirstRound(this.run, event);
}
function firstError(this: FirstRound, error: unknown): void {
  failFirstRound(this.run, error);
}
/** An exchange that ends without a response ends the request without an output. */
function firstComplete(this: FirstRound): void {
  if (this.run.driverStop$ === undefined) finish(this.run);
}
function firstEnded(this: FirstRound): boolean {
  // The round driver has its own limits once round 1 handed over.
  return this.run.ended || this.run.driverStop$ !== undefined;
}
/** Rule 4: the reason first, so that the cut sends it upstream. */
function firstLimitFailure(this: FirstRound): unknown {
  const { run } = this;
  run.limit = undefined;
  run.cancelReason = TIMEOUT_REASON;
  const method = run.request.method;
  return timeoutError(method, roundLimitMs(method, 1, run.shared.config));
}

/** Starts round 1; a throw (of meta or of the exchange) is the caller's to answer (rule 12). */
export function startFirstRound(run: Run): void {
  const { shared, request } = run;
  const method = request.method;
  const params = upstreamParams(request.params, shared.deps.meta(request));
  const first: FirstRound = {
    run,
    next: firstNext,
    error: firstError,
    complete: firstComplete,
    // An arrow: ExchangeOptions promises a plain function, which an upstream may call unbound.
    cancelReason: () => run.cancelReason,
    ended: firstEnded,
    limitFailure: firstLimitFailure,
    failAtLimit: firstError,
    trace: { round: 1, clientId: request.id },
    // Made above for this exchange alone: the connection may set its progress token in place.
    fresh: true,
  };
  run.first = first;
  // A limit longer than the first slow line's wait is armed by that line (Run.limitAfterSlow).
  if (run.limitAfterSlow === undefined)
    run.limit = armLimit(shared.scheduler, roundLimitMs(method, 1, shared.config), first);
  const exchange = shared.deps.upstream.request(method, params, first).subscribe(first);
  // A response during the subscription (an exchange in memory) has ended the request or handed
  // it to the round driver already: the exchange is done, and nothing else would unsubscribe it.
  if (run.ended || run.driverStop$ !== undefined) exchange.unsubscribe();
  else run.current = exchange;
}

/** An event of round 1: progress, or the response that ends or hands over the request. */
function onFirstRound(run: Run, event: ExchangeEvent): void {
  if (event.type === 'notification') {
    const progress = clientProgress(run, event.frame);
    if (progress !== undefined) emitGuarded(run, { type: 'progress', frame: progress });
    return;
  }
  const frame = event.frame;
  if (
    !isErrorResponse(frame) &&
    ROUND_METHODS.has(run.request.method) &&
    frame.result['resultType'] === 'input_required'
  ) {
    // The round-1 exchange has its response: it ends here, with its limit.
    const round1 = run.current;
    run.limit?.unsubscribe();
    run.limit = undefined;
    run.limitAfterSlow = undefined;
    handOver(run, event);
    round1?.unsubscribe();
    return;
  }
  emitGuarded(
    run,
    isErrorResponse(frame) ? { type: 'error', error: frame.error } : { type: 'result', result: frame.result },
  );
  if (!run.ended) finish(run);
}

/** Round 1 failed: this request's error output, unless the round driver took over. */
export function failFirstRound(run: Run, error: unknown): void {
  if (run.driverStop$ !== undefined || run.ended) return;
  run.limit?.unsubscribe();
  run.limit = undefined;
  emitGuarded(run, { type: 'error', error: errorOfThrown(error) });
  if (!run.ended) finish(run);
}
