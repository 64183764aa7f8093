/**
 * Checks the answers of the client to the bridge requests of a round and builds the
 * `inputResponses` of the retry (docs/input-rounds.md#input-answer-checks, docs/lines.md#lines-bad-line bad lines).
 * Pure: no rxjs, no node:*.
 */
import { bridgeError } from '../../protocol/errors.js';
import { isObject } from '../../protocol/jsonrpc.js';
import type { ErrorObject, JsonObject } from '../../protocol/jsonrpc.js';
import { keyDetail, quote } from './detail.js';
import type { InputSchemaChecks } from './checks.js';
import type {
  AcceptedUrl,
  ClientReply,
  InputAsk,
  InputFailure,
  InputLogEntry,
  InputSession,
  RetryExtras,
  RoundPlan,
} from './types.js';

/** The outcome of one answer: the input response, a failure of the rounds, or the client's error. */
export type AnswerCheck =
  | { readonly response: JsonObject; readonly accepted?: AcceptedUrl }
  | { readonly failure: InputFailure }
  | { readonly clientError: ErrorObject };

const ELICIT_ACTIONS: ReadonlySet<string> = new Set(['accept', 'decline', 'cancel']);
const FILE_URI = /^file:\/\//i;

const invalidAnswer = (ask: InputAsk, text: string): AnswerCheck => ({
  failure: { cause: 'invalid_client_answer', detail: keyDetail(ask.key, text) },
});

/**
 * Checks the answer of the client to one bridge request.
 * - Elicitation: `action` must be accept, decline or cancel; content goes upstream only for an
 *   accepted form and must be valid against its `requestedSchema`; the Continue form gives
 *   `{action:"accept",content:{}}` (form without properties) or `{action:"accept"}` (URL asked
 *   again); URL answers never carry content; an error or a bad line gives `{action:"cancel"}`.
 * - Sampling: a CreateMessageResult, without its `_meta`.
 * - Roots: only `file://` roots, each with its other members.
 * - Sampling or roots answered with an error: the client request fails with that error.
 */
export function checkAnswer(ask: InputAsk, reply: ClientReply, checks: InputSchemaChecks): AnswerCheck {
  const { result } = reply;
  if (result === undefined) {
    if (ask.method === 'elicitation/create') return { response: { action: 'cancel' } };
    if (reply.error !== undefined) return { clientError: reply.error };
    return invalidAnswer(ask, 'the answer of the client is not a valid message');
  }
  switch (ask.kind) {
    case 'sampling': {
      if (!checks.matchesSpec('CreateMessageResult', result)) {
        return invalidAnswer(ask, 'the sampling result does not have the shape of the schema');
      }
      const { _meta: _dropped, ...response } = result;
      return { response };
    }
    case 'roots': {
      if (!checks.matchesSpec('ListRootsResult', result) || !Array.isArray(result['roots'])) {
        return invalidAnswer(ask, 'the roots result does not have the shape of the schema');
      }
      const roots = result['roots'].filter(
        (root) => isObject(root) && typeof root['uri'] === 'string' && FILE_URI.test(root['uri']),
      );
      return { response: { roots } };
    }
    default:
      return checkElicitation(ask, result, checks);
  }
}

function checkElicitation(
  ask: InputAsk,
  result: JsonObject,
  { matchesSpec, formValidator }: InputSchemaChecks,
): AnswerCheck {
  const action = result['action'];
  if (typeof action !== 'string' || !ELICIT_ACTIONS.has(action)) {
    return invalidAnswer(ask, 'the elicitation result does not have the shape of the schema');
  }
  if (action !== 'accept') return { response: { action } };
  switch (ask.kind) {
    case 'emptyForm':
      return { response: { action, content: {} } };
    case 'urlAgain':
      return { response: { action } };
    case 'url':
      return ask.url === undefined ? { response: { action } } : { response: { action }, accepted: ask.url };
    default: {
      const content = result['content'];
      const validate = ask.requestedSchema === undefined ? undefined : formValidator(ask.requestedSchema);
      const valid =
        isObject(content) &&
        validate !== undefined &&
        validate(content) === true &&
        matchesSpec('ElicitResult', { action, content });
      if (!valid) return invalidAnswer(ask, 'the accepted content is not valid against the requestedSchema');
      return { response: { action, content } };
    }
  }
}

/** The end of a round: the retry, or the error the client request fails with. */
export type RoundSettlement =
  | { readonly session: InputSession; readonly retry: RetryExtras }
  | { readonly session: InputSession; readonly error: ErrorObject; readonly log: InputLogEntry };

/**
 * Checks all answers of a round, in the order of the keys, and builds the retry: `inputResponses`
 * keyed like the input requests (when the result had them) and `requestState` only when the
 * result had one. The first failing answer fails the client request; URLs accepted in the same
 * round are still remembered, so that they get their completion.
 *
 * @param replies the answers, in the order of `plan.asks`.
 * @param session the session during the round (URLs accepted so far), by default the plan's.
 */
export function settleRound(
  plan: RoundPlan,
  replies: readonly ClientReply[],
  session: InputSession = plan.session,
): RoundSettlement {
  const responses = new Map<string, JsonObject>(
    Object.entries(plan.immediate).flatMap(([key, value]) => (isObject(value) ? [[key, value]] : [])),
  );
  let acceptedUrls = session.acceptedUrls;
  let problem: { readonly error: ErrorObject; readonly log: InputLogEntry } | undefined;
  plan.asks.forEach((ask, index) => {
    const checked = checkAnswer(ask, replies[index] ?? {}, plan.checks);
    if ('response' in checked) {
      responses.set(ask.key, checked.response);
      const accepted = checked.accepted;
      if (
        accepted !== undefined &&
        !acceptedUrls.some((url) => url.elicitationId === accepted.elicitationId)
      ) {
        acceptedUrls = [...acceptedUrls, accepted];
      }
    } else if (problem === undefined) {
      problem =
        'failure' in checked ? failureOutcome(checked.failure) : clientErrorOutcome(checked.clientError);
    }
  });
  const settled: InputSession = { acceptedUrls };
  if (problem !== undefined) return { session: settled, ...problem };
  // fromEntries makes own members, also for a key such as `__proto__`.
  const inputResponses: JsonObject = Object.fromEntries(
    plan.keys.flatMap((key) => {
      const response = responses.get(key);
      return response === undefined ? [] : [[key, response]];
    }),
  );
  const retry: RetryExtras = {
    ...(plan.answersInputRequests ? { inputResponses } : {}),
    ...(plan.requestState === undefined ? {} : { requestState: plan.requestState }),
  };
  return { session: settled, retry };
}

/** The error and warning of a failure of the input requests. */
export function failureOutcome(failure: InputFailure): { error: ErrorObject; log: InputLogEntry } {
  return {
    error: bridgeError(failure.cause, failure.detail),
    log: { level: 'warn', text: `the input requests of the upstream server failed: ${failure.detail}` },
  };
}

function clientErrorOutcome(error: ErrorObject): { error: ErrorObject; log: InputLogEntry } {
  const text = `the client answered an input request with an error: ${quote(error.message)}`;
  return { error, log: { level: 'info', text } };
}
