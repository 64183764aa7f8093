/**
 * The input codec uses the schema checks it is given: the operators
 * entry loads no ajv, the caller passes `ajvInputChecks` or checks of its own.
 */
import { describe, expect, it } from 'vitest';
import { checkAnswer, settleRound } from '../../../src/codec/input/answer.js';
import type { InputSchemaChecks } from '../../../src/codec/input/checks.js';
import { planRound } from '../../../src/codec/input/plan.js';
import { EMPTY_INPUT_SESSION } from '../../../src/codec/input/types.js';
import type { InputAsk } from '../../../src/codec/input/types.js';
import { inputRequired } from '../../../src/testing/frames.js';

/** Checks that accept every shape and every form answer, and count what they were asked. */
function lenient(): InputSchemaChecks & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    matchesSpec: (name) => {
      asked.push(name);
      return true;
    },
    formValidator: () => {
      asked.push('form');
      return () => true;
    },
  };
}

const context = (checks: InputSchemaChecks) => ({
  clientCapabilities: { elicitation: { form: {} } },
  maxInputRequests: 16,
  session: EMPTY_INPUT_SESSION,
  nextElicitationId: () => 'elicitation-1',
  checks,
});

const form = {
  method: 'elicitation/create',
  params: { message: 'Age?', requestedSchema: { type: 'object', properties: { age: { type: 'integer' } } } },
};

describe('the schema checks of the input codec', () => {
  it('planRound asks the given checks, and refuses a request the checks refuse', () => {
    const refusing: InputSchemaChecks = { matchesSpec: () => false, formValidator: () => () => true };
    expect(planRound(inputRequired({ f: form }), context(refusing))).toEqual({
      failure: {
        cause: 'invalid_input_request',
        detail: "input request 'f': the request does not have the shape of the schema",
      },
    });
    const checks = lenient();
    expect(planRound(inputRequired({ f: form }), context(checks))).toHaveProperty('plan');
    expect(checks.asked).toEqual(['ElicitRequestFormParams', 'form']);
  });

  it('the answers of a round are checked by the checks of its plan', () => {
    const checks = lenient();
    const outcome = planRound(inputRequired({ f: form }), context(checks));
    if (!('plan' in outcome)) throw new Error('no plan');
    // "forty" is no integer: only checks of one's own that accept everything let it through.
    const settled = settleRound(outcome.plan, [{ result: { action: 'accept', content: { age: 'forty' } } }]);
    expect(settled).toMatchObject({
      retry: { inputResponses: { f: { action: 'accept', content: { age: 'forty' } } } },
    });
    expect(checks.asked).toEqual(['ElicitRequestFormParams', 'form', 'form', 'ElicitResult']);
  });

  it('checkAnswer refuses a sampling answer the given checks refuse', () => {
    const ask: InputAsk = { key: 's', kind: 'sampling', method: 'sampling/createMessage', params: {} };
    const refusing: InputSchemaChecks = { matchesSpec: () => false, formValidator: () => undefined };
    const result = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' };
    expect(checkAnswer(ask, { result }, refusing)).toHaveProperty('failure');
    expect(checkAnswer(ask, { result }, lenient())).toEqual({ response: result });
  });
});
