/**
 * One subscription of forwardRequest (rules in ../forwardRequest.ts): its start, its stop (a
 * client cancel, the end of input, the loss of the upstream) and its teardown; its state and
 * outputs are forwardState.ts. Its rounds, from round 1, are the round driver's that
 * driveInputRounds runs too (driveRounds.ts), with the request's side of them
 * (forwardRounds.ts); the slow-request lines are slowLines.ts.
 */
import type { Subscriber } from 'rxjs';
import type { JsonValue, RequestFrame } from '../../src/protocol/jsonrpc.js';
import { CLIENT_CANCEL_REASON } from '../../src/protocol/cancelReasons.js';
import { isObject } from '../../src/protocol/jsonrpc.js';
import type { ForwardAbort } from '../forwardRequest.js';
import { driveRounds, startRounds, stopRounds } from './driveRounds.js';
import { closeRounds } from './roundsContext.js';
import { roundDeps, roundsSettings, roundsSink } from './forwardRounds.js';
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
    ended: false,
    rounds: undefined,
    slow: undefined,
    slowTicks: 0,
  };
  shared.deps.track(request.id, run.stop);
  // Rule 13: a stop at once (the input ended before) ends the request here.
  if (!run.ended) {
    armSlowLines(run);
    const { scheduler } = shared;
    run.rounds = driveRounds(roundsSettings(run), roundDeps(run), scheduler, roundsSink(run), subscriber);
    startRounds(run.rounds);
  }
  return () => {
    run.ended = true;
    run.slow?.unsubscribe();
    if (run.rounds !== undefined) closeRounds(run.rounds);
    shared.deps.untrack(request.id, run.stop);
  };
}

/** A client cancel, the end of input or the loss of the upstream (deps.track). */
function stopRun(run: Run, abort: ForwardAbort): void {
  if (run.ended) return;
  // Remembered before anything unsubscribes the upstream exchange: the reason goes upstream.
  run.cancelReason = abort.reason;
  if (run.rounds !== undefined) return stopRounds(run.rounds, abort);
  if (abort.error !== undefined) emitGuarded(run, { type: 'error', error: abort.error });
  finish(run);
}
