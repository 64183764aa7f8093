import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTINUE_SCHEMA, CONTINUE_URL_MESSAGE, planRound } from '../../../src/codec/input/plan.js';
import type { PlanContext } from '../../../src/codec/input/plan.js';
import { ajvInputChecks } from '../../../src/codec/input/schemas.js';
import { EMPTY_INPUT_SESSION } from '../../../src/codec/input/types.js';
import type { InputSession, RoundPlan } from '../../../src/codec/input/types.js';
import type { JsonObject } from '../../../src/protocol/jsonrpc.js';
import { inputRequired } from '../../../src/testing/frames.js';

const ALL: JsonObject = { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} };
const SCHEMA: JsonObject = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 2 }, age: { type: 'integer', maximum: 150 } },
  required: ['name'],
};
const form = (message = 'Your name?', requestedSchema: JsonObject = SCHEMA): JsonObject => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema },
});
const url = (href: string, message = 'Sign in'): JsonObject => ({
  method: 'elicitation/create',
  params: { mode: 'url', message, url: href },
});
const sampling = (extra: JsonObject = {}): JsonObject => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10, ...extra },
});
const roots: JsonObject = { method: 'roots/list' };

function context(capabilities: JsonObject = ALL, session: InputSession = EMPTY_INPUT_SESSION) {
  let n = 0;
  const ctx: PlanContext & { made(): number } = {
    clientCapabilities: capabilities,
    maxInputRequests: 16,
    session,
    nextElicitationId: () => `elicitation-${++n}`,
    checks: ajvInputChecks,
    made: () => n,
  };
  return ctx;
}

function plan(result: JsonObject, ctx: PlanContext = context()): RoundPlan {
  const outcome = planRound(result, ctx);
  if (!('plan' in outcome)) throw new Error(`expected a plan, got ${JSON.stringify(outcome.failure)}`);
  return outcome.plan;
}

const failure = (result: JsonObject, ctx: PlanContext = context()) => {
  const outcome = planRound(result, ctx);
  return 'failure' in outcome ? outcome.failure : undefined;
};

describe('planRound: kinds (docs/input-rounds.md#input-kinds)', () => {
  it('asks a form with mode, message and requestedSchema only', () => {
    const request = form();
    (request['params'] as JsonObject)['task'] = { ttl: 1000 };
    (request['params'] as JsonObject)['_meta'] = { x: 1 };
    const p = plan(inputRequired({ name: request }, 'state-1'));
    expect(p.asks).toEqual([
      {
        key: 'name',
        kind: 'form',
        method: 'elicitation/create',
        params: { mode: 'form', message: 'Your name?', requestedSchema: SCHEMA },
        requestedSchema: SCHEMA,
      },
    ]);
    expect(p.requestState).toBe('state-1');
    expect(p.answersInputRequests).toBe(true);
  });

  it('treats an elicitation without mode as a form', () => {
    const p = plan(
      inputRequired({
        a: { method: 'elicitation/create', params: { message: 'm', requestedSchema: SCHEMA } },
      }),
    );
    expect(p.asks[0]?.params).toEqual({ mode: 'form', message: 'm', requestedSchema: SCHEMA });
  });

  it('asks a URL with an elicitationId of the bridge', () => {
    const ctx = context();
    const p = plan(inputRequired({ login: url('https://example.com/login') }), ctx);
    expect(p.asks).toEqual([
      {
        key: 'login',
        kind: 'url',
        method: 'elicitation/create',
        params: {
          mode: 'url',
          message: 'Sign in',
          url: 'https://example.com/login',
          elicitationId: 'elicitation-1',
        },
        url: { url: 'https://example.com/login', elicitationId: 'elicitation-1' },
      },
    ]);
  });

  it('gives each URL request its own elicitationId, also for the same URL', () => {
    const p = plan(inputRequired({ a: url('https://example.com/'), b: url('https://example.com/') }));
    expect(p.asks.map((ask) => ask.url?.elicitationId)).toEqual(['elicitation-1', 'elicitation-2']);
  });

  it('asks a form without properties as the one-choice Continue form', () => {
    const p = plan(inputRequired({ ok: form('Proceed?', { type: 'object', properties: {} }) }));
    expect(p.asks).toEqual([
      {
        key: 'ok',
        kind: 'emptyForm',
        method: 'elicitation/create',
        params: { mode: 'form', message: 'Proceed?', requestedSchema: CONTINUE_SCHEMA },
      },
    ]);
    expect(CONTINUE_SCHEMA).toEqual({
      type: 'object',
      properties: { continue: { type: 'string', title: 'Continue', enum: ['Continue'] } },
      required: ['continue'],
    });
  });

  it('asks sampling with the params as given, without task and _meta, includeContext kept', () => {
    const request = sampling({ includeContext: 'thisServer', task: { ttl: 1 }, _meta: { progressToken: 3 } });
    const p = plan(inputRequired({ s: request }));
    expect(p.asks[0]?.method).toBe('sampling/createMessage');
    expect(p.asks[0]?.params).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      maxTokens: 10,
      includeContext: 'thisServer',
    });
  });

  it('asks roots/list without params', () => {
    const p = plan(inputRequired({ r: { method: 'roots/list', params: { _meta: {} } } }));
    expect(p.asks).toEqual([{ key: 'r', kind: 'roots', method: 'roots/list' }]);
  });

  it('keeps the order of the keys', () => {
    const p = plan(inputRequired({ z: roots, a: form(), m: sampling() }));
    expect(p.asks.map((ask) => ask.key)).toEqual(['z', 'a', 'm']);
    expect(p.keys).toEqual(['z', 'a', 'm']);
  });

  it('plans a state-only result as a retry without inputResponses', () => {
    const p = plan({ resultType: 'input_required', requestState: 'only-state' });
    expect(p).toMatchObject({ asks: [], answersInputRequests: false, requestState: 'only-state' });
  });

  it('has no requestState when the result has none, or null', () => {
    expect(plan(inputRequired({ a: roots })).requestState).toBeUndefined();
    expect('requestState' in plan({ ...inputRequired({ a: roots }), requestState: null })).toBe(false);
  });
});

describe('planRound: URL rule (docs/input-rounds.md#input-checks)', () => {
  it('never asks a refused URL: the upstream gets decline and a warning is logged; other requests still go', () => {
    const ctx = context();
    const p = plan(inputRequired({ bad: url('javascript:alert(1)'), name: form() }), ctx);
    expect(p.asks.map((ask) => ask.key)).toEqual(['name']);
    expect(p.immediate).toEqual({ bad: { action: 'decline' } });
    expect(p.warnings).toEqual([
      {
        level: 'warn',
        text: "input request 'bad': the bridge refused the URL of a URL elicitation; the upstream server gets decline",
      },
    ]);
    expect(ctx.made()).toBe(0);
  });
});

describe('planRound: accepted URLs (docs/input-rounds.md#input-url-again)', () => {
  const accepted = { url: 'https://example.com/login', elicitationId: 'elicitation-7' };
  const session: InputSession = { acceptedUrls: [accepted] };

  it('asks an accepted URL again as the Continue form when the client has form mode', () => {
    const ctx = context(ALL, session);
    const p = plan(inputRequired({ again: url('https://example.com/login') }), ctx);
    expect(p.asks).toEqual([
      {
        key: 'again',
        kind: 'urlAgain',
        method: 'elicitation/create',
        params: { mode: 'form', message: CONTINUE_URL_MESSAGE, requestedSchema: CONTINUE_SCHEMA },
        url: accepted,
      },
    ]);
    expect(p.complete).toEqual([]);
    expect(p.session).toEqual(session);
    expect(ctx.made()).toBe(0);
  });

  it('asks an accepted URL again with the same URL and elicitationId when the client has no form mode', () => {
    const ctx = context({ elicitation: { url: {} } }, session);
    const p = plan(inputRequired({ again: url('https://example.com/login', 'Again') }), ctx);
    expect(p.asks[0]).toMatchObject({
      kind: 'url',
      params: { mode: 'url', message: 'Again', url: accepted.url, elicitationId: 'elicitation-7' },
    });
    expect(ctx.made()).toBe(0);
  });

  it('completes an accepted URL that the round no longer asks', () => {
    const p = plan(inputRequired({ name: form() }), context(ALL, session));
    expect(p.complete).toEqual(['elicitation-7']);
    expect(p.session).toEqual(EMPTY_INPUT_SESSION);
  });
});

describe('planRound: checks (docs/input-rounds.md#input-checks)', () => {
  it('fails above the per-round cap with the count and the limit', () => {
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, roots]));
    expect(failure(inputRequired(many))).toEqual({
      cause: 'too_many_input_requests',
      detail: '17 input requests in one round, limit: 16',
    });
    expect(
      planRound(inputRequired(Object.fromEntries(Object.entries(many).slice(1))), context()),
    ).toHaveProperty('plan');
  });

  it('checks the count before the kinds', () => {
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, roots]));
    expect(failure(inputRequired(many), context({}))?.cause).toBe('too_many_input_requests');
  });

  it.each([
    ['elicitation.form', form(), { elicitation: { url: {} } }],
    ['elicitation.form', form(), {}],
    ['elicitation.url', url('https://example.com/'), { elicitation: {} }],
    ['elicitation.url', url('https://example.com/'), { elicitation: { form: {} } }],
    ['sampling', sampling(), { roots: {} }],
    ['roots', roots, { sampling: {} }],
  ])('fails a kind the client did not declare: %s', (capability, request, capabilities) => {
    expect(failure(inputRequired({ k: request }), context(capabilities))).toEqual({
      cause: 'undeclared_input_request',
      detail: `input request 'k': the client did not declare ${capability}`,
    });
  });

  it('takes elicitation: {} as form mode', () => {
    expect(planRound(inputRequired({ k: form() }), context({ elicitation: {} }))).toHaveProperty('plan');
  });

  it.each([
    ['tools', sampling({ tools: [{ name: 't', inputSchema: { type: 'object' } }] })],
    ['toolChoice', sampling({ toolChoice: { mode: 'auto' } })],
    [
      'tool_use content',
      {
        method: 'sampling/createMessage',
        params: {
          maxTokens: 5,
          messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: '1', name: 't', input: {} }] }],
        },
      },
    ],
    [
      'tool_result content',
      {
        method: 'sampling/createMessage',
        params: {
          maxTokens: 5,
          messages: [{ role: 'user', content: { type: 'tool_result', toolUseId: '1', content: [] } }],
        },
      },
    ],
  ])('fails sampling with %s when the client did not declare sampling.tools', (_name, request) => {
    expect(failure(inputRequired({ s: request }), context({ sampling: {} }))).toEqual({
      cause: 'undeclared_input_request',
      detail:
        "input request 's': sampling with tools needs sampling.tools, and the client did not declare it",
    });
    expect(planRound(inputRequired({ s: request }), context({ sampling: { tools: {} } }))).toHaveProperty(
      'plan',
    );
  });

  it.each([
    ['a request that is not an object', 5],
    ['no method', { params: {} }],
    ['an unknown method', { method: 'tools/list', params: {} }],
    [
      'an unknown elicitation mode',
      { method: 'elicitation/create', params: { mode: 'popup', message: 'm' } },
    ],
    ['elicitation params that are not an object', { method: 'elicitation/create', params: [] }],
    ['a form without message', { method: 'elicitation/create', params: { requestedSchema: SCHEMA } }],
    ['a form without requestedSchema', { method: 'elicitation/create', params: { message: 'm' } }],
    ['a form whose schema is not of type object', form('m', { type: 'string', properties: {} })],
    ['a form with a nested object', form('m', { type: 'object', properties: { a: { type: 'object' } } })],
    [
      'a form that does not compile',
      form('m', { type: 'object', properties: { a: { type: 'string', pattern: '(' } } }),
    ],
    ['a URL without url', { method: 'elicitation/create', params: { mode: 'url', message: 'm' } }],
    ['sampling without maxTokens', { method: 'sampling/createMessage', params: { messages: [] } }],
    [
      'sampling with a bad role',
      sampling({ messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] }),
    ],
    ['roots with params that are not an object', { method: 'roots/list', params: 3 }],
  ])('fails %s with invalid_input_request naming the key', (_name, request) => {
    const got = failure(inputRequired({ key1: request }));
    expect(got?.cause).toBe('invalid_input_request');
    expect(got?.detail).toMatch(/^input request 'key1': /);
  });

  it.each([
    ['inputRequests is not an object', { resultType: 'input_required', inputRequests: [] }],
    ['requestState is not a string', { resultType: 'input_required', inputRequests: {}, requestState: 5 }],
    ['neither', { resultType: 'input_required' }],
  ])('fails a result whose %s', (_name, result) => {
    expect(failure(result as JsonObject)?.cause).toBe('invalid_input_request');
  });

  it('checks the input requests in key order: the first failure wins, and no elicitationId is made', () => {
    const ctx = context({ elicitation: { url: {} } });
    const got = failure(
      inputRequired({ a: url('https://example.com/'), b: form(), c: { method: 'nope' } }),
      ctx,
    );
    expect(got).toEqual({
      cause: 'undeclared_input_request',
      detail: "input request 'b': the client did not declare elicitation.form",
    });
    expect(ctx.made()).toBe(0);
  });

  it('quotes a key without control characters and clips a long one', () => {
    const got = failure(inputRequired({ 'a\nb': { method: 'x' } }));
    expect(got?.detail).toMatch(/^input request 'a\?b': /);
    const long = 'k'.repeat(500);
    expect(failure(inputRequired({ [long]: { method: 'x' } }))?.detail).toContain(`'${'k'.repeat(120)}…'`);
  });
});

describe('planRound: properties', () => {
  const often = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined, freq: 5 });
  const capability = fc.record({
    elicitation: often(fc.constantFrom<JsonObject>({}, { form: {} }, { url: {} }, { form: {}, url: {} })),
    sampling: often(fc.constantFrom<JsonObject>({}, { tools: {} })),
    roots: often(fc.constant<JsonObject>({})),
  });
  const inputRequest: fc.Arbitrary<JsonObject> = fc.oneof(
    { weight: 3, arbitrary: fc.constant(form()) },
    { weight: 2, arbitrary: fc.constant(form('Proceed?', { type: 'object', properties: {} })) },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom('https://example.com/', 'http://localhost:1/', 'javascript:x', 'http://evil.example/')
        .map((href) => url(href)),
    },
    { weight: 3, arbitrary: fc.constant(sampling({ task: { ttl: 5 }, _meta: { a: 1 } })) },
    { weight: 1, arbitrary: fc.constant(sampling({ tools: [] })) },
    { weight: 3, arbitrary: fc.constant(roots) },
    {
      weight: 1,
      arbitrary: fc.record({
        method: fc.constantFrom('elicitation/create', 'ping', 'roots/list'),
        params: fc.jsonValue(),
      }) as fc.Arbitrary<JsonObject>,
    },
  );
  const requests = fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), inputRequest, { maxKeys: 6 });

  it('never puts task into an ask and never asks for a kind the client did not declare', () => {
    let asked = 0;
    fc.assert(
      fc.property(
        capability,
        requests,
        fc.option(fc.string(), { nil: undefined }),
        (caps, inputRequests, state) => {
          const declared: JsonObject = {};
          for (const [name, value] of Object.entries(caps)) if (value !== undefined) declared[name] = value;
          const outcome = planRound(inputRequired(inputRequests, state), context(declared));
          if (!('plan' in outcome)) return;
          asked += outcome.plan.asks.length;
          for (const ask of outcome.plan.asks) {
            expect(ask.params === undefined || !('task' in ask.params)).toBe(true);
            const elicitation = caps.elicitation;
            if (ask.method === 'roots/list') expect(caps.roots).toBeDefined();
            if (ask.method === 'sampling/createMessage') {
              expect(caps.sampling).toBeDefined();
              if (ask.params?.['tools'] !== undefined) expect(caps.sampling?.['tools']).toBeDefined();
            }
            if (ask.params?.['mode'] === 'url') expect(elicitation?.['url']).toBeDefined();
            if (ask.params?.['mode'] === 'form') {
              expect(elicitation).toBeDefined();
              expect(elicitation?.['form'] !== undefined || elicitation?.['url'] === undefined).toBe(true);
            }
          }
          expect(outcome.plan.asks.length + Object.keys(outcome.plan.immediate).length).toBe(
            Object.keys(inputRequests).length,
          );
        },
      ),
      { seed: 20261130, numRuns: 1000 },
    );
    expect(asked).toBeGreaterThan(500);
  });
});
