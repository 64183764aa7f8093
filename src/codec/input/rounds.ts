/**
 * The state of the rounds of one client request and its transitions, without time: the round
 * driver (operators/driveInputRounds.ts) keeps one `RoundsState` per subscription and applies the
 * transitions at the frames where their events happen (docs/input-rounds.md#input-rounds, docs/input-rounds.md#input-url-again, docs/input-rounds.md#input-pending,
 * docs/requests.md#requests-progress, docs/requests.md#requests-cancellation). Pure: no rxjs, no node:*; each transition returns a new state.
 */
import type { Frame, JsonObject, NotificationFrame, ResponseFrame } from '../../protocol/jsonrpc.js';
import type { ClientRevision } from '../revisions.js';
import type { InputSchemaChecks } from './checks.js';
import { checkAnswer, settleRound } from './answer.js';
import { askFrame, cancelledFrame, elicitationCompleteFrame, stepOnResponse } from './step.js';
import type { RoundsEnd } from './step.js';
import { EMPTY_INPUT_SESSION } from './types.js';
import type {
  ClientAnswer,
  ClientReply,
  InputLogEntry,
  InputSession,
  RetryExtras,
  RoundOutput,
  RoundPlan,
} from './types.js';

/** What one client request keeps across its rounds. */
export interface RoundsState {
  /** Accepted URLs not completed yet. */
  readonly session: InputSession;
  /** Bridge requests sent and not answered, in order. */
  readonly outstanding: readonly string[];
}

export const INITIAL_ROUNDS_STATE: RoundsState = Object.freeze({
  session: EMPTY_INPUT_SESSION,
  outstanding: Object.freeze([]),
});

/** A new state, what to emit, and what to log. */
export interface Transition {
  readonly state: RoundsState;
  readonly outputs: readonly RoundOutput[];
  readonly logs: readonly InputLogEntry[];
}

/** The fixed settings of the rounds of one client request. */
export interface RoundsSettings {
  /** The client method. */
  readonly method: string;
  /** Most upstream rounds per client request, ≥ 1. */
  readonly maxRounds: number;
  /** Most input requests in one round, ≥ 1. */
  readonly maxInputRequests: number;
  /** Time allowed for all answers of one round, in ms, ≥ 0. */
  readonly inputTimeoutMs: number;
}

/** What the rounds need from the connection. */
export interface RoundsConnection {
  /** As declared in `initialize` (2025-11-25 shape). */
  readonly clientCapabilities: JsonObject;
  /** The client's revision (docs/revisions.md); default 2025-11-25. */
  readonly clientRevision?: ClientRevision;
  /** `b-1`, `b-2`, … per connection. */
  nextBridgeId(): string;
  /** `elicitation-1`, … per connection. */
  nextElicitationId(): string;
  /** The schema checks of the rounds: `ajvInputChecks` (mcp-bridge-sdk/node) or checks of one's own. */
  readonly checks: InputSchemaChecks;
}

/** Throws a RangeError for settings out of range, so that a bad config fails at startup. */
export function checkRoundsSettings(settings: RoundsSettings): void {
  const { maxRounds, maxInputRequests, inputTimeoutMs } = settings;
  if (!(Number.isInteger(maxRounds) && maxRounds >= 1))
    throw new RangeError('maxRounds must be an integer ≥ 1');
  if (!(Number.isInteger(maxInputRequests) && maxInputRequests >= 1)) {
    throw new RangeError('maxInputRequests must be an integer ≥ 1');
  }
  if (!(inputTimeoutMs >= 0)) throw new RangeError('inputTimeoutMs must be ≥ 0');
}

/** A round that asks: its plan, its bridge ids (in the order of the asks) and the bridge requests. */
export interface OpenRound {
  readonly plan: RoundPlan;
  readonly ids: readonly string[];
  readonly requests: readonly RoundOutput[];
}

/** The outcome of an upstream response; `round` when the client is asked, after `outputs`. */
export interface OpenedRound extends Transition {
  readonly round?: OpenRound;
}

const toClient = (frame: Frame): RoundOutput => ({ type: 'toClient', frame });

const NO_LOGS: readonly InputLogEntry[] = Object.freeze([]);

const endOutput = (end: RoundsEnd): RoundOutput =>
  'result' in end ? { type: 'result', result: end.result } : { type: 'error', error: end.error };

/**
 * Upstream progress of a round passes as a `progress` output, as it comes; which of it reaches
 * the client, with which token, is the rule of forwardRequest (src/codec/progress.ts,
 * docs/requests.md#requests-progress). Other notifications of an exchange are dropped.
 */
export function forwardProgress(state: RoundsState, frame: NotificationFrame): Transition {
  if (frame.method !== 'notifications/progress') return { state, outputs: [], logs: [] };
  return { state, outputs: [{ type: 'progress', frame }], logs: [] };
}

/**
 * Ends the client request: `notifications/cancelled` for the outstanding bridge requests when a
 * reason is given, then `notifications/elicitation/complete` for the accepted URLs, then the
 * result or the error when there is one (a cancelled request gets no response).
 */
export function endRounds(state: RoundsState, end: RoundsEnd | undefined, cancelReason?: string): Transition {
  // Most requests end in round 1 with nothing outstanding: their one output, no copies.
  if (state === INITIAL_ROUNDS_STATE && end !== undefined)
    return { state, outputs: [endOutput(end)], logs: NO_LOGS };
  const cancels =
    cancelReason === undefined ? [] : state.outstanding.map((id) => cancelledFrame(id, cancelReason));
  const completes = state.session.acceptedUrls.map((url) => elicitationCompleteFrame(url.elicitationId));
  const last: RoundOutput[] = end === undefined ? [] : [endOutput(end)];
  return {
    state: { ...state, session: EMPTY_INPUT_SESSION, outstanding: [] },
    outputs: [...[...cancels, ...completes].map(toClient), ...last],
    logs: [],
  };
}

/**
 * Handles the upstream response of round `round`: ends the request, or opens the next round
 * (completions of accepted URLs no longer asked, then the bridge requests with new `b-N` ids).
 */
export function openRound(
  state: RoundsState,
  frame: ResponseFrame,
  round: { readonly n: number; readonly carriedRequestState: boolean; readonly inputWaitMs: number },
  settings: RoundsSettings,
  connection: RoundsConnection,
): OpenedRound {
  // A result that asks for nothing ends the request as it is (stepOnResponse's first rule for a
  // result), without the context of a plan.
  if ('result' in frame && frame.result['resultType'] !== 'input_required')
    return endRounds(state, { result: frame.result });
  const step = stepOnResponse(frame, {
    method: settings.method,
    round: round.n,
    maxRounds: settings.maxRounds,
    maxInputRequests: settings.maxInputRequests,
    carriedRequestState: round.carriedRequestState,
    inputWaitMs: round.inputWaitMs,
    clientCapabilities: connection.clientCapabilities,
    ...(connection.clientRevision === undefined ? {} : { clientRevision: connection.clientRevision }),
    session: state.session,
    nextElicitationId: () => connection.nextElicitationId(),
    checks: connection.checks,
  });
  if ('end' in step) {
    const ended = endRounds(state, step.end);
    return { ...ended, logs: step.log === undefined ? [] : [step.log] };
  }
  const { plan } = step;
  const sent = plan.asks.map((ask) => ({ id: connection.nextBridgeId(), ask }));
  const ids = sent.map(({ id }) => id);
  return {
    state: { ...state, session: plan.session, outstanding: ids },
    outputs: plan.complete.map((id) => toClient(elicitationCompleteFrame(id))),
    logs: plan.warnings,
    round: { plan, ids, requests: sent.map(({ id, ask }) => toClient(askFrame(id, ask))) },
  };
}

/**
 * The client answered a bridge request of the round: it is no longer outstanding, and an accepted
 * URL is remembered at once.
 */
export function answerArrived(state: RoundsState, round: OpenRound, answer: ClientAnswer): RoundsState {
  const outstanding = state.outstanding.filter((id) => id !== answer.id);
  const ask = round.plan.asks[round.ids.indexOf(answer.id)];
  // A URL the user accepted gets its completion even when the round never ends (docs/input-rounds.md#input-url-again).
  const checked = ask?.kind === 'url' ? checkAnswer(ask, answer, round.plan.checks) : undefined;
  const accepted = checked !== undefined && 'accepted' in checked ? checked.accepted : undefined;
  if (
    accepted === undefined ||
    state.session.acceptedUrls.some((url) => url.elicitationId === accepted.elicitationId)
  ) {
    return { ...state, outstanding };
  }
  return { ...state, outstanding, session: { acceptedUrls: [...state.session.acceptedUrls, accepted] } };
}

/**
 * All answers of a round arrived (in the order of `plan.asks`): the retry extras, or the end of
 * the request when an answer fails it.
 */
export function closeRound(
  state: RoundsState,
  plan: RoundPlan,
  answers: readonly ClientReply[],
): Transition & { readonly retry?: RetryExtras } {
  const settled = settleRound(plan, answers, state.session);
  const next: RoundsState = { ...state, session: settled.session, outstanding: [] };
  if ('retry' in settled) return { state: next, outputs: [], logs: [], retry: settled.retry };
  return { ...endRounds(next, { error: settled.error }), logs: [settled.log] };
}
