/**
 * The decisions of the round driver that do not depend on time: what an upstream response of
 * round n means, the error of a thrown failure, and the frames the driver writes to the client
 * (docs/input-rounds.md#input-rounds, docs/input-rounds.md#input-url-again, docs/input-rounds.md#input-pending). Pure: no rxjs, no node:*.
 */
import { isBridgeError } from '../../protocol/bridgeError.js';
import { bridgeError, formatDuration } from '../../protocol/errors.js';
import { notification, request } from '../../protocol/jsonrpc.js';
import type {
  ErrorObject,
  JsonObject,
  NotificationFrame,
  RequestFrame,
  ResponseFrame,
} from '../../protocol/jsonrpc.js';
import { failureOutcome } from './answer.js';
import { planRound } from './plan.js';
import type { PlanContext } from './plan.js';
import { refusedStateRule } from './refusedState.js';
import type { InputAsk, InputLogEntry, RoundPlan } from './types.js';

/** Methods whose result may be `input_required` (docs/input-rounds.md#input-which-requests). */
export const INPUT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** What the driver knows when a response of round n arrives. */
export interface ResponseContext extends PlanContext {
  /** The client method. */
  readonly method: string;
  /** The round of the response, from 1. */
  readonly round: number;
  /** Most rounds per client request. */
  readonly maxRounds: number;
  /** True when this round echoed a `requestState`. */
  readonly carriedRequestState: boolean;
  /** How long the client took to answer the round before this one, in ms (0 for round 1). */
  readonly inputWaitMs: number;
}

/** The end of a client request: the final result or the error. */
export type RoundsEnd = { readonly result: JsonObject } | { readonly error: ErrorObject };

export type ResponseStep =
  { readonly end: RoundsEnd; readonly log?: InputLogEntry } | { readonly plan: RoundPlan };

/**
 * Decides what an upstream response means: an upstream error ends the request (after the refused
 * state rule); a result that is not `input_required` ends it unchanged; an `input_required` result
 * on a method without rounds is `invalid_response`; past the round cap it is `too_many_rounds`;
 * otherwise it is planned as the next round.
 */
export function stepOnResponse(frame: ResponseFrame, context: ResponseContext): ResponseStep {
  if ('error' in frame) {
    const refused = refusedStateRule(
      context.method,
      frame.error,
      context.carriedRequestState,
      context.inputWaitMs,
    );
    if (refused === undefined) return { end: { error: frame.error } };
    return 'result' in refused
      ? { end: { result: refused.result }, log: refused.log }
      : { end: { error: refused.error }, log: refused.log };
  }
  const result = frame.result;
  if (result['resultType'] !== 'input_required') return { end: { result } };
  if (!INPUT_METHODS.has(context.method)) {
    return {
      end: { error: bridgeError('invalid_response', `an input_required result for ${context.method}`) },
    };
  }
  if (context.round >= context.maxRounds) {
    const detail = `${context.round} rounds, limit: ${context.maxRounds}`;
    const { error, log } = failureOutcome({ cause: 'too_many_rounds', detail });
    return { end: { error }, log };
  }
  const planned = planRound(result, context);
  if ('plan' in planned) return planned;
  const { error, log } = failureOutcome(planned.failure);
  return { end: { error }, log };
}

/** The JSON-RPC error of a failure thrown by an upstream exchange. */
export function errorOfThrown(thrown: unknown): ErrorObject {
  if (!isBridgeError(thrown)) return bridgeError('internal');
  const status = thrown.httpStatus === undefined ? undefined : `HTTP status ${thrown.httpStatus}`;
  const detail = [thrown.detail, status].filter((part) => part !== undefined).join(', ');
  return bridgeError(thrown.code, detail === '' ? undefined : detail);
}

/** The `input_timeout` error of a round (docs/input-rounds.md#input-pending). */
export const inputTimeoutError = (inputTimeoutMs: number, inputRequestCount: number): ErrorObject =>
  bridgeError(
    'input_timeout',
    `no answers in ${formatDuration(inputTimeoutMs)} (input requests of the round: ${inputRequestCount})`,
  );

/** The bridge request for an ask (never with `task`). */
export const askFrame = (id: string, ask: InputAsk): RequestFrame => request(id, ask.method, ask.params);

/** `notifications/cancelled` for a bridge request the client has not answered. */
export const cancelledFrame = (requestId: string, reason: string): NotificationFrame =>
  notification('notifications/cancelled', { requestId, reason });

/** `notifications/elicitation/complete` for an accepted URL. */
export const elicitationCompleteFrame = (elicitationId: string): NotificationFrame =>
  notification('notifications/elicitation/complete', { elicitationId });
