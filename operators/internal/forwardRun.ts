/**
 * One subscription of forwardRequest (rules in ../forwardRequest.ts): its start, its stop (a
 * client cancel, the end of input, the loss of the upstream) and its teardown; its state and
 * outputs are forwardState.ts. Round 1 is forwardFirstRound.ts, the slow-request lines
 * slowLines.ts, the input rounds after an `input_required` forwardRounds.ts.
 */
import type { Subscriber } from 'rxjs';
import type { JsonValue, RequestFrame } from '../../src/protocol/jsonrpc.js';
import { CLIENT_CANCEL_REASON } from '../../src/protocol/cancelReasons.js';
import { isObject } from '../../src/protocol/jsonrpc.js';
import type { ForwardAbort } from '../forwardRequest.js';
import { failFirstRound, startFirstRound } from './forwardFirstRound.js';
import { armSlowLines } from './slowLines.js';
import { emitGuarded, finish } from './forwardState.js';
import type { ForwardShared, Run } from './forwardState.js';

/** Runs one request for `subscriber`; returns the teardown of the subscription. */
export function runForward(
  shared: ForwardShared,
  request: RequestFrame,
  subscriber: Subscriber<unknown>,
): () => void {
  const clientMeta = request.params?.['_meta'];
  const progressToken: JsonValue | undefined = isObject(clientMeta) ? clientMeta['progressToken'] : undefined;
  const run: Run = {
    shared,
    request,
    subscriber,
    stop: (abort) => stopRun(run, abort),
    progressToken,
    lastProgress: -Infinity,
    cancelReason: CLIENT_CANCEL_REASON,
    waitingForClient: false,
    ended: false,
    current: undefined,
    first: undefined,
    limit: undefined,
    slow: undefined,
    slowTicks: 0,
    limitAfterSlow: undefined,
    driverStop$: undefined,
  };
  shared.deps.track(request.id, run.stop);
  // Rule 13: a stop at once (the input ended before) ends the request here.
  if (!run.ended) {
    armSlowLines(run);
    try {
      startFirstRound(run);
    } catch (error: unknown) {
      // Rule 12: as a failure of the exchange, this request's error output.
      failFirstRound(run, error);
    }
  }
  return () => {
    run.ended = true;
    run.slow?.unsubscribe();
    run.limit?.unsubscribe();
    run.current?.unsubscribe();
    shared.deps.untrack(request.id, run.stop);
  };
}

/** A client cancel, the end of input or the loss of the upstream (deps.track). */
function stopRun(run: Run, abort: ForwardAbort): void {
  if (run.ended) return;
  // Remembered before anything unsubscribes the upstream exchange: the reason goes upstream.
  run.cancelReason = abort.reason;
  if (run.driverStop$ !== undefined) {
    run.driverStop$.next(abort);
    return;
  }
  run.limit?.unsubscribe();
  run.current?.unsubscribe();
  if (abort.error !== undefined) emitGuarded(run, { type: 'error', error: abort.error });
  finish(run);
}
