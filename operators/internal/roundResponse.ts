/**
 * The upstream response of a round of the round driver (docs/input-rounds.md#input-rounds; rules
 * in ../driveInputRounds.ts): the end of the request, or the input requests of the next round, the
 * wait for their answers (waitForAnswers.ts) and the start of that round (inputRound.ts passes its
 * `startRound`, so that this file does not import it back).
 */
import * as input from '../../src/codec/input/index.js';
import type { ClientAnswer, RetryExtras } from '../../src/codec/input/index.js';
import type { ResponseFrame } from '../../src/protocol/jsonrpc.js';
import { applyTransition, emitOutputs, failRounds, finishRounds } from './roundsContext.js';
import type { RoundsContext } from './roundsContext.js';
import { waitForAnswers } from './waitForAnswers.js';

/** What the response's round was: its number, whether it echoed a request state, the wait before it. */
export interface RoundInfo {
  readonly n: number;
  readonly carriedRequestState: boolean;
  readonly inputWaitMs: number;
}

/** Starts round n with the retry extras of the round before (inputRound.ts). */
export type StartRound = (
  context: RoundsContext,
  n: number,
  extras: RetryExtras,
  inputWaitMs: number,
) => void;

/** The response of a round: the end of the request, or the input requests of the next round. */
export function onResponse(
  context: RoundsContext,
  round: RoundInfo,
  frame: ResponseFrame,
  startNext: StartRound,
): void {
  const { settings, deps } = context;
  const { n } = round;
  const opened = input.openRound(context.state, frame, round, settings, deps.connection);
  applyTransition(context, opened, context);
  if (opened.round === undefined) return finishRounds(context);
  const open = opened.round;
  const settle = (answers: readonly ClientAnswer[], waitedMs: number): void => {
    const closed = input.closeRound(context.state, open.plan, answers);
    applyTransition(context, closed, context);
    if (closed.retry === undefined || context.closed) return finishRounds(context);
    startNext(context, n + 1, closed.retry, waitedMs);
  };
  if (open.ids.length === 0) return settle([], 0);
  const timeout = (): void => {
    const error = input.inputTimeoutError(settings.inputTimeoutMs, open.plan.inputRequestCount);
    applyTransition(context, input.endRounds(context.state, { error }, 'no answer in time'), context);
    finishRounds(context);
  };
  // The answers are watched before the bridge requests go out, so that none is missed.
  waitForAnswers(context, open, {
    all: settle,
    timeout,
    fail: (thrown) => failRounds(context, thrown),
  });
  emitOutputs(context, open.requests, context);
}
