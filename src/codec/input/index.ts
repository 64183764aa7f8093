/**
 * The input-request codec (docs/input-rounds.md#input-rounds): pure functions that plan the rounds of a
 * multi round-trip request, check the answers of the client and apply the refused state rule.
 */
export { checkAnswer, failureOutcome, settleRound } from './answer.js';
export type { AnswerCheck, RoundSettlement } from './answer.js';
export { keyDetail, MAX_QUOTED_CHARS, quote } from './detail.js';
export { CONTINUE_SCHEMA, CONTINUE_URL_MESSAGE, declaresForm, planRound } from './plan.js';
export { usesTools } from '../downgradeRounds.js';
export type { PlanContext, PlanOutcome } from './plan.js';
export { refusedStateRule, refusedStateText } from './refusedState.js';
export type { RefusedStateOutcome } from './refusedState.js';
export type { InputSchemaChecks, SpecDefinition } from './checks.js';
export {
  askFrame,
  cancelledFrame,
  elicitationCompleteFrame,
  errorOfThrown,
  INPUT_METHODS,
  inputTimeoutError,
  stepOnResponse,
} from './step.js';
export type { ResponseContext, ResponseStep, RoundsEnd } from './step.js';
export {
  answerArrived,
  checkRoundsSettings,
  closeRound,
  endRounds,
  forwardProgress,
  INITIAL_ROUNDS_STATE,
  openRound,
} from './rounds.js';
export type {
  OpenedRound,
  OpenRound,
  RoundsConnection,
  RoundsSettings,
  RoundsState,
  Transition,
} from './rounds.js';
export { EMPTY_INPUT_SESSION } from './types.js';
export type { ClientRevision } from '../revisions.js';
export type {
  AcceptedUrl,
  ClientAnswer,
  ClientReply,
  InputAsk,
  InputAskKind,
  InputFailure,
  InputLogEntry,
  InputSession,
  RetryExtras,
  RoundOutput,
  RoundPlan,
} from './types.js';
export { isAllowedElicitationUrl } from './url.js';
