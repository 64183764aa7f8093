/**
 * One forwarded client request (docs/lifecycle.md#lifecycle-ready, docs/requests.md#requests-meta, docs/requests.md#requests-deadlines, docs/results.md#results-shape, docs/input-rounds.md#input-rounds): its start,
 * its stop (a client cancel, the end of input, the loss of the upstream) and its teardown. Its
 * state and frames are forwardRun.ts; round 1 forwardFirstRound.ts; the slow-request lines
 * forwardSlow.ts; the round driver forwardRounds.ts; the frames for the client forwardShape.ts.
 */
import { Observable } from 'rxjs';
import type { Subscriber } from 'rxjs';
import type { Frame, RequestFrame } from '../protocol/jsonrpc.js';
import { failFirstRound, startFirstRound } from './forwardFirstRound.js';
import { createRun, emit, finish } from './forwardRun.js';
import type { Run } from './forwardRun.js';
import type { ForwardContext } from './forwardShape.js';
import { armSlowLines } from './forwardSlow.js';
import type { Abort, Stop } from './session.js';

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

/**
 * Forwards one client request; its state (cancel reason, progress) lives per subscription.
 *
 * The steady-state path is written by hand: one upstream exchange
 * subscribed directly, its deadline and slow-request line in the deadline queue of the session,
 * the stop registered by id in the session (no subscription to a session-wide subject), the
 * state of the request in one object. The round driver is entered only when a result of
 * `tools/call`, `prompts/get` or `resources/read` says `input_required`; it then gets that first
 * response as its round 1. The frames are those of the driver for every method
 * (docs/requests.md#requests-progress–docs/requests.md#requests-slow-lines, docs/requests.md#requests-deadlines, docs/input-rounds.md#input-rounds).
 */
export function forwardRequest(ctx: ForwardContext, request: RequestFrame): Observable<Frame> {
  return new Observable<Frame>((subscriber) => runRequest(ctx, request, subscriber));
}

function runRequest(ctx: ForwardContext, request: RequestFrame, subscriber: Subscriber<Frame>): () => void {
  const session = ctx.session;
  const run = createRun(ctx, request, subscriber);
  const stop: Stop = (abort) => stopRun(run, abort);

  session.tasks += 1;
  armSlowLines(run);
  session.track(request.id, stop);
  if (!run.ended) {
    try {
      startFirstRound(run);
    } catch (error: unknown) {
      // As a failure of the exchange: this request's error frame (docs/results.md#results-shape).
      failFirstRound(run, error);
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
