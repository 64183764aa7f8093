import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAnswer as checkWith, settleRound } from '../../../src/codec/input/answer.js';
import { planRound } from '../../../src/codec/input/plan.js';
import {
  ajvInputChecks,
  cachedFormValidatorCount,
  formValidator,
  MAX_CACHED_FORM_VALIDATORS,
} from '../../../src/codec/input/schemas.js';
import { EMPTY_INPUT_SESSION } from '../../../src/codec/input/types.js';
import type { ClientReply, InputAsk, InputSession, RoundPlan } from '../../../src/codec/input/types.js';
import { wireError as bridgeError } from '../../helpers/wireErrors.js';
import type { JsonObject } from '../../../src/protocol/jsonrpc.js';
import { inputRequired } from '../../../src/testing/frames.js';

/** The checks the bridge passes (ajv and the 2025-11-25 schema). */
const checkAnswer = (ask: InputAsk, reply: ClientReply) => checkWith(ask, reply, ajvInputChecks);

const SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2 },
    age: { type: 'integer', maximum: 150 },
    color: { type: 'string', enum: ['red', 'blue'] },
    mail: { type: 'string', format: 'email' },
    day: { type: 'string', format: 'date' },
  },
  required: ['name'],
};
const LOGIN = { url: 'https://example.com/login', elicitationId: 'elicitation-3' };
const formAsk: InputAsk = {
  key: 'who',
  kind: 'form',
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Who?', requestedSchema: SCHEMA },
  requestedSchema: SCHEMA,
};
const emptyFormAsk: InputAsk = { key: 'ok', kind: 'emptyForm', method: 'elicitation/create', params: {} };
const urlAsk: InputAsk = { key: 'login', kind: 'url', method: 'elicitation/create', params: {}, url: LOGIN };
const urlAgainAsk: InputAsk = {
  key: 'login',
  kind: 'urlAgain',
  method: 'elicitation/create',
  params: {},
  url: LOGIN,
};
const samplingAsk: InputAsk = { key: 's', kind: 'sampling', method: 'sampling/createMessage', params: {} };
const rootsAsk: InputAsk = { key: 'r', kind: 'roots', method: 'roots/list' };
const CLIENT_ERROR = {
  code: -32000,
  message: 'The user has denied permission to call this method.',
  data: { x: 1 },
};

const failure = (key: string, text: string) => ({
  failure: { cause: 'invalid_client_answer', detail: `input request '${key}': ${text}` },
});

describe('checkAnswer: elicitation (docs/input-rounds.md#input-answer-checks)', () => {
  it('passes accepted form content that is valid against the requestedSchema', () => {
    const content = { name: 'Ada', age: 36, color: 'red', mail: 'ada@example.com', day: '1815-12-10' };
    expect(checkAnswer(formAsk, { result: { action: 'accept', content, _meta: { m: 1 } } })).toEqual({
      response: { action: 'accept', content },
    });
  });

  it.each([
    ['a missing required property', { age: 3 }],
    ['a wrong type', { name: 5 }],
    ['a too short string', { name: 'A' }],
    ['a number above the maximum', { name: 'Ada', age: 151 }],
    ['a value outside the enum', { name: 'Ada', color: 'green' }],
    ['a bad email', { name: 'Ada', mail: 'no-at-sign' }],
    ['a bad date', { name: 'Ada', day: '2026-02-30' }],
    ['a nested value', { name: 'Ada', extra: { deep: true } }],
  ])('fails accepted content with %s', (_name, content) => {
    expect(checkAnswer(formAsk, { result: { action: 'accept', content } })).toEqual(
      failure('who', 'the accepted content is not valid against the requestedSchema'),
    );
  });

  it('fails an accept without content', () => {
    expect(checkAnswer(formAsk, { result: { action: 'accept' } })).toEqual(
      failure('who', 'the accepted content is not valid against the requestedSchema'),
    );
  });

  it.each(['decline', 'cancel'])('strips the content of %s', (action) => {
    expect(checkAnswer(formAsk, { result: { action, content: { name: 'x' } } })).toEqual({
      response: { action },
    });
  });

  it.each([{ action: 'maybe' }, {}, { action: 1 }])('fails an unknown action %j', (result) => {
    expect(checkAnswer(formAsk, { result })).toEqual(
      failure('who', 'the elicitation result does not have the shape of the schema'),
    );
  });

  it.each<[string, ClientReply]>([
    ['an error', { error: CLIENT_ERROR }],
    ['a bad line', { badLine: true }],
  ])('gives the upstream cancel for an elicitation answered with %s', (_name, reply) => {
    for (const ask of [formAsk, emptyFormAsk, urlAsk, urlAgainAsk]) {
      expect(checkAnswer(ask, reply)).toEqual({ response: { action: 'cancel' } });
    }
  });

  it('maps accept of the Continue form to accept with empty content for a form without properties', () => {
    expect(
      checkAnswer(emptyFormAsk, { result: { action: 'accept', content: { continue: 'Continue' } } }),
    ).toEqual({
      response: { action: 'accept', content: {} },
    });
  });

  it('maps accept of the Continue form to accept without content for a URL asked again', () => {
    expect(
      checkAnswer(urlAgainAsk, { result: { action: 'accept', content: { continue: 'Continue' } } }),
    ).toEqual({
      response: { action: 'accept' },
    });
  });

  it('sends no content for a URL answer and remembers an accepted URL', () => {
    expect(checkAnswer(urlAsk, { result: { action: 'accept', content: { a: 1 } } })).toEqual({
      response: { action: 'accept' },
      accepted: LOGIN,
    });
    expect(checkAnswer(urlAsk, { result: { action: 'decline', content: { a: 1 } } })).toEqual({
      response: { action: 'decline' },
    });
  });

  it('never sends content upstream for a URL answer', () => {
    fc.assert(
      fc.property(fc.constantFrom('accept', 'decline', 'cancel'), fc.jsonValue(), (action, content) => {
        for (const ask of [urlAsk, urlAgainAsk]) {
          const checked = checkAnswer(ask, { result: { action, content } as JsonObject });
          expect('response' in checked && !('content' in checked.response)).toBe(true);
        }
      }),
      { seed: 20261130, numRuns: 300 },
    );
  });
});

describe('checkAnswer: sampling and roots (docs/input-rounds.md#input-answer-checks)', () => {
  const sample = { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm-1' };

  it('passes a CreateMessageResult upstream without its _meta', () => {
    expect(
      checkAnswer(samplingAsk, { result: { ...sample, stopReason: 'endTurn', _meta: { a: 1 } } }),
    ).toEqual({
      response: { ...sample, stopReason: 'endTurn' },
    });
  });

  it('fails a sampling result that is not a CreateMessageResult', () => {
    expect(
      checkAnswer(samplingAsk, { result: { role: 'assistant', content: { type: 'text', text: 'x' } } }),
    ).toEqual(failure('s', 'the sampling result does not have the shape of the schema'));
  });

  it('keeps only file:// roots, with their other members', () => {
    const roots = [
      { uri: 'file:///work/a', name: 'a', _meta: { k: 1 } },
      { uri: 'vscode-vfs://github/x', name: 'remote' },
      { uri: 'untitled:Untitled-1' },
      { uri: 'FILE:///work/b' },
    ];
    expect(checkAnswer(rootsAsk, { result: { roots, _meta: { z: 1 } } })).toEqual({
      response: { roots: [roots[0], roots[3]] },
    });
  });

  it('fails a roots result that is not a ListRootsResult', () => {
    expect(checkAnswer(rootsAsk, { result: { roots: [{ name: 'no uri' }] } })).toEqual(
      failure('r', 'the roots result does not have the shape of the schema'),
    );
  });

  it.each([samplingAsk, rootsAsk])(
    'fails the client request with the error of the client, verbatim ($kind)',
    (ask) => {
      expect(checkAnswer(ask, { error: CLIENT_ERROR })).toEqual({ clientError: CLIENT_ERROR });
    },
  );

  it.each([samplingAsk, rootsAsk])('fails a bad line as not a valid message ($kind)', (ask) => {
    expect(checkAnswer(ask, { badLine: true })).toEqual(
      failure(ask.key, 'the answer of the client is not a valid message'),
    );
  });
});

function planOf(result: JsonObject, session: InputSession = EMPTY_INPUT_SESSION): RoundPlan {
  let n = 0;
  const outcome = planRound(result, {
    clientCapabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} },
    maxInputRequests: 16,
    session,
    nextElicitationId: () => `elicitation-${++n}`,
    checks: ajvInputChecks,
  });
  if (!('plan' in outcome)) throw new Error('no plan');
  return outcome.plan;
}

describe('settleRound', () => {
  const form = { method: 'elicitation/create', params: { message: 'm', requestedSchema: SCHEMA } };
  const url = (href: string) => ({
    method: 'elicitation/create',
    params: { mode: 'url', message: 'm', url: href },
  });

  it('keys inputResponses like the input requests, with refused URLs declined, and echoes requestState', () => {
    const plan = planOf(
      inputRequired({ a: form, bad: url('file:///etc/passwd'), r: { method: 'roots/list' } }, 'st'),
    );
    const settled = settleRound(plan, [{ result: { action: 'decline' } }, { result: { roots: [] } }]);
    expect(settled).toEqual({
      session: EMPTY_INPUT_SESSION,
      retry: {
        inputResponses: { a: { action: 'decline' }, bad: { action: 'decline' }, r: { roots: [] } },
        requestState: 'st',
      },
    });
    expect(Object.keys('retry' in settled ? (settled.retry.inputResponses ?? {}) : {})).toEqual([
      'a',
      'bad',
      'r',
    ]);
  });

  it('keeps a key named __proto__ as an own member of inputResponses', () => {
    const inputRequests = JSON.parse(
      '{"__proto__": {"method": "roots/list"}, "bad": {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "file:///x"}}}',
    ) as JsonObject;
    const settled = settleRound(planOf(inputRequired(inputRequests)), [{ result: { roots: [] } }]);
    const responses = 'retry' in settled ? settled.retry.inputResponses : undefined;
    expect(JSON.stringify(responses)).toBe('{"__proto__":{"roots":[]},"bad":{"action":"decline"}}');
  });

  it('retries a state-only result with the requestState only', () => {
    expect(settleRound(planOf({ resultType: 'input_required', requestState: 'x' }), [])).toEqual({
      session: EMPTY_INPUT_SESSION,
      retry: { requestState: 'x' },
    });
  });

  it('has no requestState when the result had none', () => {
    const settled = settleRound(planOf(inputRequired({ r: { method: 'roots/list' } })), [
      { result: { roots: [] } },
    ]);
    expect(settled).toEqual({
      session: EMPTY_INPUT_SESSION,
      retry: { inputResponses: { r: { roots: [] } } },
    });
  });

  it('remembers accepted URLs', () => {
    const plan = planOf(inputRequired({ u: url('https://example.com/') }));
    expect(settleRound(plan, [{ result: { action: 'accept' } }]).session).toEqual({
      acceptedUrls: [{ url: 'https://example.com/', elicitationId: 'elicitation-1' }],
    });
  });

  it('fails at the first failing answer in key order, and still remembers URLs accepted in the round', () => {
    const plan = planOf(
      inputRequired({ u: url('https://example.com/'), s: { method: 'roots/list' }, f: form }),
    );
    const settled = settleRound(plan, [
      { result: { action: 'accept' } },
      { error: CLIENT_ERROR },
      { result: { action: 'accept', content: {} } },
    ]);
    expect(settled).toEqual({
      session: { acceptedUrls: [{ url: 'https://example.com/', elicitationId: 'elicitation-1' }] },
      error: CLIENT_ERROR,
      log: {
        level: 'info',
        text: `the client answered an input request with an error: ${CLIENT_ERROR.message}`,
      },
    });
  });

  it('fails with invalid_client_answer and a warning', () => {
    const settled = settleRound(planOf(inputRequired({ f: form })), [
      { result: { action: 'accept', content: {} } },
    ]);
    const detail = "input request 'f': the accepted content is not valid against the requestedSchema";
    expect(settled).toEqual({
      session: EMPTY_INPUT_SESSION,
      error: bridgeError('invalid_client_answer', detail),
      log: { level: 'warn', text: `the input requests of the upstream server failed: ${detail}` },
    });
  });
});

describe('formValidator', () => {
  it('compiles a form once and keeps at most MAX_CACHED_FORM_VALIDATORS', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(formValidator(schema)).toBe(formValidator({ ...schema }));
    for (let i = 0; i < MAX_CACHED_FORM_VALIDATORS + 10; i += 1) {
      expect(
        formValidator({ type: 'object', properties: { [`p${i}`]: { type: 'string', $id: 'same' } } }),
      ).toBeDefined();
    }
    expect(cachedFormValidatorCount()).toBe(MAX_CACHED_FORM_VALIDATORS);
  });

  it('ignores $schema, $id and $async of a form', () => {
    const validate = formValidator({
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'urn:x',
      $async: true,
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    expect(validate?.({ a: 1 })).toBe(false);
    expect(formValidator({ $id: 'urn:x', type: 'object', properties: {} })).toBeDefined();
  });

  it('gives undefined for a schema that does not compile', () => {
    expect(formValidator({ type: 'object', properties: { a: { type: 'nope' } } })).toBeUndefined();
  });
});
