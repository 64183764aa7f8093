/**
 * The round driver: the rounds of one client request from round 1, for driveInputRounds and for
 * forwardRequest alike (rules in ../driveInputRounds.ts and ../forwardRequest.ts). Round 1 is a
 * round as every other (inputRound.ts): one upstream exchange with its own limit, the wait for
 * the answers it asks for, and the next round; the rounds share one context (roundsContext.ts).
 * A stop cuts the work as `takeUntil` does and ends the request
 * (docs/requests.md#requests-cancellation).
 */
import type { SchedulerLike } from 'rxjs';
import * as input from '../../src/codec/input/index.js';
import type { RequestStop } from '../../src/protocol/cancelReasons.js';
import { startRound } from './inputRound.js';
import { applyTransition, closeRounds, roundsContext } from './roundsContext.js';
import type { Live, RoundDeps, RoundsContext, RoundsSink } from './roundsContext.js';

/** The rounds of one request; `closeRounds` is the teardown of all of them. */
export type Rounds = RoundsContext;

const NO_EXTRAS = Object.freeze({});

/**
 * The rounds of one request whose outputs go to `sink` while `live` (the output's subscriber) is
 * open; nothing runs before `startRounds`.
 */
export function driveRounds(
  settings: input.RoundsSettings,
  deps: RoundDeps,
  scheduler: SchedulerLike,
  sink: RoundsSink,
  live: Live,
): Rounds {
  return roundsContext(settings, deps, scheduler, sink, live);
}

/** Round 1. */
export function startRounds(rounds: Rounds): void {
  startRound(rounds, 1, NO_EXTRAS, 0);
}

/**
 * Cuts the work, then ends the request with the outputs of the stop (its reason goes with
 * `notifications/cancelled` for each bridge request still waiting for its answer); nothing once
 * ended.
 */
export function stopRounds(rounds: Rounds, { reason, error }: RequestStop): void {
  if (rounds.closed) return;
  // The exchange first: its cancellation upstream goes before what the client gets.
  closeRounds(rounds);
  applyTransition(rounds, input.endRounds(rounds.state, error && { error }, reason), rounds.live);
  rounds.sink.complete();
}

/** True while bridge requests of the current round wait for the client's answers. */
export function waitingForClient(rounds: Rounds): boolean {
  return rounds.state.outstanding.length > 0;
}
