import { describe, expect, it } from 'vitest';
import {
  answerArrived,
  checkRoundsSettings,
  closeRound,
  endRounds,
  forwardProgress,
  INITIAL_ROUNDS_STATE,
  openRound,
} from '../../../src/codec/input/rounds.js';
import type { RoundsConnection, RoundsState } from '../../../src/codec/input/rounds.js';
import { ajvInputChecks } from '../../../src/codec/input/schemas.js';
import { errorOfThrown, inputTimeoutError, stepOnResponse } from '../../../src/codec/input/step.js';
import { BridgeError } from '../../../src/protocol/bridgeError.js';
import { wireError as bridgeError } from '../../helpers/wireErrors.js';
import type { JsonObject } from '../../../src/protocol/jsonrpc.js';
import { err, errWith, inputRequired, note, progress, req, res } from '../../../src/testing/frames.js';

const SETTINGS = { method: 'tools/call', maxRounds: 3, maxInputRequests: 2, inputTimeoutMs: 1000 };
const ROUNDS = { n: 1, carriedRequestState: false, inputWaitMs: 0 };
const FORM = {
  method: 'elicitation/create',
  params: { message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } },
};
const URL_REQUEST = {
  method: 'elicitation/create',
  params: { mode: 'url', message: 'Sign in', url: 'https://example.com/' },
};

function connection(
  capabilities: JsonObject = { elicitation: { form: {}, url: {} }, roots: {} },
): RoundsConnection {
  let bridge = 0;
  let elicitation = 0;
  return {
    clientCapabilities: capabilities,
    nextBridgeId: () => `b-${++bridge}`,
    nextElicitationId: () => `elicitation-${++elicitation}`,
    checks: ajvInputChecks,
  };
}

describe('stepOnResponse', () => {
  const context = {
    ...SETTINGS,
    ...ROUNDS,
    round: 1,
    clientCapabilities: {},
    session: INITIAL_ROUNDS_STATE.session,
    nextElicitationId: () => 'e',
    checks: ajvInputChecks,
  };

  it('ends with a result that is not input_required, unchanged', () => {
    expect(stepOnResponse(res(1, { content: [], resultType: 'complete' }), context)).toEqual({
      end: { result: { content: [], resultType: 'complete' } },
    });
  });

  it('ends with an upstream error unchanged', () => {
    expect(stepOnResponse(errWith(1, -32602, 'bad'), context)).toEqual({
      end: { error: { code: -32602, message: 'bad' } },
    });
  });

  it('applies the refused state rule to a round that carried requestState', () => {
    const step = stepOnResponse(errWith(1, -32602, 'expired'), { ...context, carriedRequestState: true });
    expect(step).toMatchObject({ end: { result: { isError: true } }, log: { level: 'warn' } });
  });

  it('gives invalid_response for input_required on a method without rounds', () => {
    expect(stepOnResponse(res(1, inputRequired({})), { ...context, method: 'tools/list' })).toEqual({
      end: { error: bridgeError('invalid_response', 'an input_required result for tools/list') },
    });
  });

  it('gives too_many_rounds when the last allowed round asks again', () => {
    expect(stepOnResponse(res(1, inputRequired({})), { ...context, round: 3 })).toEqual({
      end: { error: bridgeError('too_many_rounds', '3 rounds, limit: 3') },
      log: { level: 'warn', text: 'the input requests of the upstream server failed: 3 rounds, limit: 3' },
    });
  });
});

describe('round transitions', () => {
  it('passes progress notifications as they come, and drops other notifications of an exchange', () => {
    const forwarded = [1, 1, 0.5].map(
      (value) => forwardProgress(INITIAL_ROUNDS_STATE, progress(1, value)).outputs,
    );
    expect(forwarded).toEqual([
      [{ type: 'progress', frame: progress(1, 1) }],
      [{ type: 'progress', frame: progress(1, 1) }],
      [{ type: 'progress', frame: progress(1, 0.5) }],
    ]);
    const other = forwardProgress(INITIAL_ROUNDS_STATE, note('notifications/message', { progress: 10 }));
    expect(other).toEqual({ state: INITIAL_ROUNDS_STATE, outputs: [], logs: [] });
  });

  it('opens a round: completions first, then bridge requests with b-N ids', () => {
    const accepted = { url: 'https://old.example/', elicitationId: 'elicitation-9' };
    const state = { ...INITIAL_ROUNDS_STATE, session: { acceptedUrls: [accepted] } };
    const opened = openRound(
      state,
      res(1, inputRequired({ f: FORM, r: { method: 'roots/list' } })),
      ROUNDS,
      SETTINGS,
      connection(),
    );
    expect(opened.outputs).toEqual([
      {
        type: 'toClient',
        frame: note('notifications/elicitation/complete', { elicitationId: 'elicitation-9' }),
      },
    ]);
    expect(opened.round?.requests).toEqual([
      { type: 'toClient', frame: req('b-1', 'elicitation/create', { mode: 'form', ...FORM.params }) },
      { type: 'toClient', frame: req('b-2', 'roots/list') },
    ]);
    expect(opened.state.outstanding).toEqual(['b-1', 'b-2']);
    expect(opened.state.session.acceptedUrls).toEqual([]);
    expect(answerArrived(opened.state, opened.round!, { id: 'b-1', badLine: true }).outstanding).toEqual([
      'b-2',
    ]);
  });

  it('ends at once when the round fails its checks, and makes no bridge id', () => {
    const conn = connection({});
    const opened = openRound(
      INITIAL_ROUNDS_STATE,
      res(1, inputRequired({ f: FORM })),
      ROUNDS,
      SETTINGS,
      conn,
    );
    expect(opened.round).toBeUndefined();
    expect(opened.outputs).toEqual([
      {
        type: 'error',
        error: bridgeError(
          'undeclared_input_request',
          "input request 'f': the client did not declare elicitation.form",
        ),
      },
    ]);
    expect(conn.nextBridgeId()).toBe('b-1');
  });

  it('ends with cancellations, then completions, then the response', () => {
    const state: RoundsState = {
      session: { acceptedUrls: [{ url: 'https://example.com/', elicitationId: 'elicitation-1' }] },
      outstanding: ['b-2', 'b-3'],
    };
    const ended = endRounds(state, { error: inputTimeoutError(300, 2) }, 'no answer in time');
    expect(ended.outputs).toEqual([
      {
        type: 'toClient',
        frame: note('notifications/cancelled', { requestId: 'b-2', reason: 'no answer in time' }),
      },
      {
        type: 'toClient',
        frame: note('notifications/cancelled', { requestId: 'b-3', reason: 'no answer in time' }),
      },
      {
        type: 'toClient',
        frame: note('notifications/elicitation/complete', { elicitationId: 'elicitation-1' }),
      },
      {
        type: 'error',
        error: bridgeError('input_timeout', 'no answers in 300 ms (input requests of the round: 2)'),
      },
    ]);
    expect(ended.state).toEqual(INITIAL_ROUNDS_STATE);
    expect(endRounds(state, undefined).outputs).toHaveLength(1);
  });

  it('closes a round with the retry, or with the end of the request', () => {
    const opened = openRound(
      INITIAL_ROUNDS_STATE,
      res(1, inputRequired({ u: URL_REQUEST }, 's1')),
      ROUNDS,
      SETTINGS,
      connection(),
    );
    const plan = opened.round!.plan;
    const closed = closeRound(opened.state, plan, [{ result: { action: 'accept' } }]);
    expect(closed.retry).toEqual({ inputResponses: { u: { action: 'accept' } }, requestState: 's1' });
    expect(closed.state.session.acceptedUrls).toEqual([
      { url: 'https://example.com/', elicitationId: 'elicitation-1' },
    ]);
    const failed = closeRound(opened.state, plan, [{ result: { action: 'nope' } }]);
    expect(failed.retry).toBeUndefined();
    expect(failed.outputs.map((output) => output.type)).toEqual(['error']);
  });
});

describe('errorOfThrown', () => {
  it('keeps the code and detail of a BridgeError and adds the HTTP status', () => {
    expect(errorOfThrown(new BridgeError('timeout', { detail: 'tools/call: no response in 1 s' }))).toEqual(
      bridgeError('timeout', 'tools/call: no response in 1 s'),
    );
    expect(errorOfThrown(new BridgeError('transport_failed', { httpStatus: 502 }))).toEqual(
      bridgeError('transport_failed', 'HTTP status 502'),
    );
  });

  it('makes anything else internal', () => {
    expect(errorOfThrown(new Error('boom'))).toEqual(bridgeError('internal'));
    expect(err(1, -32603, 'internal').error).toEqual(bridgeError('internal'));
  });
});

describe('checkRoundsSettings', () => {
  it.each([
    { maxRounds: 0 },
    { maxRounds: 1.5 },
    { maxInputRequests: 0 },
    { inputTimeoutMs: -1 },
    { inputTimeoutMs: Number.NaN },
  ])('refuses %j', (bad) => {
    expect(() => checkRoundsSettings({ ...SETTINGS, ...bad })).toThrow(RangeError);
  });
});
