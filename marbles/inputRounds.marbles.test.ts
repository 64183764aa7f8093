/**
 * Timing and order rules of input-request rounds (docs/input-rounds.md#input-rounds, docs/requests.md#requests-progress, docs/requests.md#requests-cancellation).
 * Alphabet (marbles/README.md): lower case is inbound (upstream events, client answers, aborts),
 * upper case is outbound. 1 frame = 1 ms. Each upstream round is a cold picked from `rounds`.
 */
import { Observable, Subject } from 'rxjs';
import type { RunHelpers } from 'rxjs/testing';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG, driveInputRounds } from '../operators/driveInputRounds.js';
import type {
  ClientAnswer,
  DriveInputRoundsConfig,
  InputRoundsDeps,
  RoundOutput,
} from '../operators/driveInputRounds.js';
import { CONTINUE_SCHEMA, CONTINUE_URL_MESSAGE, refusedStateText } from '../src/codec/input/index.js';
import type { RetryExtras } from '../src/codec/input/index.js';
import type { ExchangeEvent } from '../src/ports/upstream.js';
import { ajvInputChecks } from '../src/codec/input/schemas.js';
import { BridgeError } from '../src/protocol/bridgeError.js';
import { wireError as bridgeError } from '../test/helpers/wireErrors.js';
import type { ErrorFrame, ErrorObject, Frame, JsonObject } from '../src/protocol/jsonrpc.js';
import { errWith, inputRequired, note, progress, req, res } from '../src/testing/frames.js';
import { createProtocolScheduler } from '../src/testing/scheduler.js';
import { ASK_FORM, FINAL, FORM, NAME } from './inputFixtures.js';
import { unhandledErrorsOf } from './unhandledErrors.js';
import {
  clientAnswer,
  errorOutput,
  notificationEvent,
  responseEvent,
  resultOutput,
  toClientOutput,
} from '../src/testing/events.js';

const scheduler = () => createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

// Input requests of the upstream (2026-07-28) and what VS Code gets for them (2025-11-25).
const ROOTS = { method: 'roots/list' };
const LOGIN_URL = 'https://example.com/login';
const LOGIN = { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: LOGIN_URL } };
const ASK_ROOTS = (id: string) => req(id, 'roots/list');
const ASK_LOGIN = (id: string, elicitationId: string) =>
  req(id, 'elicitation/create', { ...LOGIN.params, elicitationId });

// Client answers.
const CONTINUED = { action: 'accept', content: { continue: 'Continue' } };
const DIRS = { roots: [{ uri: 'file:///work', name: 'work' }] };
const answer = (id: string, result: JsonObject): ClientAnswer => clientAnswer(id, result);

// Upstream events and driver outputs.
const up = (result: JsonObject, id = 1): ExchangeEvent => responseEvent(res(id, result));
const NO_EVENTS: Record<string, ExchangeEvent> = {};
const upError = (frame: ErrorFrame): ExchangeEvent => responseEvent(frame);
const upNote = (frame: ReturnType<typeof note>): ExchangeEvent => notificationEvent(frame);
const out = (frame: Frame): RoundOutput => toClientOutput(frame);
const done = (result: JsonObject = FINAL): RoundOutput => resultOutput(result);
const failed = (error: ErrorObject): RoundOutput => errorOutput(error);
const cancelled = (requestId: string, reason: string) =>
  out(note('notifications/cancelled', { requestId, reason }));
const completed = (elicitationId: string) =>
  out(note('notifications/elicitation/complete', { elicitationId }));

const CANCEL = { reason: 'the client canceled the request' };
const ALL_KINDS: JsonObject = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

interface Scenario {
  readonly rounds: readonly Observable<ExchangeEvent>[] | ((n: number) => Observable<ExchangeEvent>);
  readonly answers?: Observable<ClientAnswer>;
  readonly abort?: Observable<{ reason: string; error?: ErrorObject }>;
  readonly capabilities?: JsonObject;
  readonly config?: Partial<DriveInputRoundsConfig>;
  readonly log?: (level: 'warn' | 'info', text: string) => void;
  /** Replaces deps of the driver (a throwing id source or schema check). */
  readonly deps?: Partial<InputRoundsDeps>;
}

/** The driver with its deps; `calls` lists the upstream exchanges (round, extras) after the run. */
function drive({ hot }: RunHelpers, scenario: Scenario) {
  const calls: { round: number; extras: RetryExtras }[] = [];
  let bridgeIds = 0;
  let elicitationIds = 0;
  const { rounds } = scenario;
  const output$ = driveInputRounds(
    { ...DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG, method: 'tools/call', ...scenario.config },
    {
      exchange: (round, extras) => {
        calls.push({ round, extras });
        const cold = typeof rounds === 'function' ? rounds(round) : rounds[round - 1];
        if (cold === undefined) throw new Error(`no upstream round ${round}`);
        return cold;
      },
      answers$: scenario.answers ?? hot<ClientAnswer>('-'),
      abort$: scenario.abort ?? hot('-'),
      nextBridgeId: () => `b-${++bridgeIds}`,
      nextElicitationId: () => `elicitation-${++elicitationIds}`,
      clientCapabilities: scenario.capabilities ?? ALL_KINDS,
      checks: ajvInputChecks,
      ...(scenario.log === undefined ? {} : { log: scenario.log }),
      ...scenario.deps,
    },
  );
  return { output$, calls };
}

describe('driveInputRounds', () => {
  it('all answers of a round arrive before the retry', () => {
    let calls: { round: number; extras: RetryExtras }[] = [];
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable, expectSubscriptions } = helpers;
      // #region all-answers
      const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM, dirs: ROOTS })) });
      const answers = hot('  ------r---n', { r: answer('b-2', DIRS), n: answer('b-1', NAME) });
      const round2 = cold('             -(R|)', { R: up(FINAL, 2) });
      const expected = '     - (QW) 6ms (R|)';
      const round2Subs = '   10ms ^!';
      // #endregion all-answers
      const driven = drive(helpers, { rounds: [round1, round2], answers });
      calls = driven.calls;
      expectObservable(driven.output$).toBe(expected, {
        Q: out(ASK_FORM('b-1')),
        W: out(ASK_ROOTS('b-2')),
        R: done(),
      });
      expectSubscriptions(round2.subscriptions).toBe(round2Subs);
    });
    expect(calls).toEqual([
      { round: 1, extras: {} },
      { round: 2, extras: { inputResponses: { name: NAME, dirs: DIRS } } },
    ]);
    // In the order of the asks, not of the answers (the roots answer came first).
    expect(Object.keys(calls[1]!.extras.inputResponses ?? {})).toEqual(['name', 'dirs']);
  });

  it('the retry is subscribed only at the frame of the last answer', () => {
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable, expectSubscriptions } = helpers;
      // #region retry-frame
      const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM })) });
      const answers = hot('  -------n', { n: answer('b-1', NAME) });
      const round2 = cold('          --(R|)', { R: up(FINAL, 2) });
      const expected = '     -Q 7ms (R|)';
      const round1Subs = '   ^!';
      const round2Subs = '   7ms ^-!';
      // #endregion retry-frame
      const { output$ } = drive(helpers, { rounds: [round1, round2], answers });
      expectObservable(output$).toBe(expected, { Q: out(ASK_FORM('b-1')), R: done() });
      expectSubscriptions(round1.subscriptions).toBe(round1Subs);
      expectSubscriptions(round2.subscriptions).toBe(round2Subs);
    });
  });

  it('an input timeout cancels the outstanding bridge requests before the error', () => {
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable, expectSubscriptions } = helpers;
      // #region input-timeout
      const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM, dirs: ROOTS })) });
      const answers = hot('  -----r-------n', { r: answer('b-2', DIRS), n: answer('b-1', NAME) });
      const expected = '     - (QW) 6ms (CX|)';
      const answerSubs = '   -^---------!';
      // #endregion input-timeout
      const { output$ } = drive(helpers, { rounds: [round1], answers, config: { inputTimeoutMs: 10 } });
      expectObservable(output$).toBe(expected, {
        Q: out(ASK_FORM('b-1')),
        W: out(ASK_ROOTS('b-2')),
        C: cancelled('b-1', 'no answer in time'),
        X: failed(bridgeError('input_timeout', 'no answers in 10 ms (input requests of the round: 2)')),
      });
      expectSubscriptions(answers.subscriptions).toBe(answerSubs);
    });
  });

  it('a client cancel during a wait sends notifications/cancelled for each outstanding bridge request and no response', () => {
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable, expectSubscriptions } = helpers;
      // #region cancel-wait
      const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM, dirs: ROOTS, again: FORM })) });
      const answers = hot('  ------r', { r: answer('b-2', DIRS) });
      const abort = hot('    ---------c', { c: CANCEL });
      const round2 = cold('   -(R|)', { R: up(FINAL, 2) });
      const expected = '     - (QWV) 3ms (CD|)';
      // #endregion cancel-wait
      const { output$ } = drive(helpers, { rounds: [round1, round2], answers, abort });
      expectObservable(output$).toBe(expected, {
        Q: out(ASK_FORM('b-1')),
        W: out(ASK_ROOTS('b-2')),
        V: out(ASK_FORM('b-3')),
        C: cancelled('b-1', CANCEL.reason),
        D: cancelled('b-3', CANCEL.reason),
      });
      expectSubscriptions(round2.subscriptions).toBe([]);
    });
  });

  it('a client cancel during a retry round unsubscribes the upstream exchange and sends nothing to the client', () => {
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable, expectSubscriptions } = helpers;
      // #region cancel-retry
      const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM })) });
      const answers = hot('  ----n', { n: answer('b-1', NAME) });
      const round2 = cold('       -----(R|)', { R: up(FINAL, 2) });
      const abort = hot('    -------c', { c: CANCEL });
      const expected = '     -Q-----|';
      const round2Subs = '   ----^--!';
      // #endregion cancel-retry
      const { output$ } = drive(helpers, { rounds: [round1, round2], answers, abort });
      expectObservable(output$).toBe(expected, { Q: out(ASK_FORM('b-1')) });
      expectSubscriptions(round2.subscriptions).toBe(round2Subs);
    });
  });

  it('the round cap gives too_many_rounds', () => {
    let calls: { round: number; extras: RetryExtras }[] = [];
    scheduler().run((helpers) => {
      const { cold, expectObservable } = helpers;
      // #region round-cap
      const again = () => cold('-(i|)', { i: up({ resultType: 'input_required', requestState: 'again' }) });
      const expected = '     10ms (X|)';
      // #endregion round-cap
      const driven = drive(helpers, { rounds: again });
      calls = driven.calls;
      expectObservable(driven.output$).toBe(expected, {
        X: failed(bridgeError('too_many_rounds', '10 rounds, limit: 10')),
      });
    });
    expect(calls.map((call) => call.round)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('the per-round cap sends nothing', () => {
    scheduler().run((helpers) => {
      const { cold, expectObservable } = helpers;
      const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`dir${i}`, ROOTS]));
      // #region per-round-cap
      const round1 = cold('   --(i|)', { i: up(inputRequired(many)) });
      const expected = '     --(X|)';
      // #endregion per-round-cap
      const { output$ } = drive(helpers, { rounds: [round1] });
      expectObservable(output$).toBe(expected, {
        X: failed(bridgeError('too_many_input_requests', '17 input requests in one round, limit: 16')),
      });
    });
  });

  it('elicitation/complete precedes the response', () => {
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      // #region complete-before-response
      const round1 = cold('   -(i|)', { i: up(inputRequired({ login: LOGIN })) });
      const answers = hot('  ----a', { a: answer('b-1', { action: 'accept' }) });
      const round2 = cold('       --(R|)', { R: up(FINAL, 2) });
      const expected = '     -Q 4ms (KR|)';
      // #endregion complete-before-response
      const { output$ } = drive(helpers, { rounds: [round1, round2], answers });
      expectObservable(output$).toBe(expected, {
        Q: out(ASK_LOGIN('b-1', 'elicitation-1')),
        K: completed('elicitation-1'),
        R: done(),
      });
    });
  });

  it('elicitation/complete precedes the bridge requests of a later round', () => {
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      // #region complete-before-next-round
      const round1 = cold('   -(i|)', { i: up(inputRequired({ login: LOGIN })) });
      const answers = hot('  ---a---n', { a: answer('b-1', { action: 'accept' }), n: answer('b-2', NAME) });
      const round2 = cold('      -(j|)', { j: up(inputRequired({ name: FORM }), 2) });
      const round3 = cold('          -(R|)', { R: up(FINAL, 3) });
      const expected = '     -Q-- (KP) (R|)';
      // #endregion complete-before-next-round
      const { output$ } = drive(helpers, { rounds: [round1, round2, round3], answers });
      expectObservable(output$).toBe(expected, {
        Q: out(ASK_LOGIN('b-1', 'elicitation-1')),
        K: completed('elicitation-1'),
        P: out(ASK_FORM('b-2')),
        R: done(),
      });
    });
  });

  it('an accepted URL asked again gets the Continue form, and one completion at the end', () => {
    let calls: { round: number; extras: RetryExtras }[] = [];
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      // #region url-again
      const round1 = cold('   -(i|)', { i: up(inputRequired({ login: LOGIN })) });
      const answers = hot('  ---a--c', {
        a: answer('b-1', { action: 'accept' }),
        c: answer('b-2', CONTINUED),
      });
      const round2 = cold('      -(j|)', { j: up(inputRequired({ login: LOGIN }), 2) });
      const round3 = cold('         -(R|)', { R: up(FINAL, 3) });
      const expected = '     -Q--V-- (KR|)';
      // #endregion url-again
      const driven = drive(helpers, { rounds: [round1, round2, round3], answers });
      calls = driven.calls;
      expectObservable(driven.output$).toBe(expected, {
        Q: out(ASK_LOGIN('b-1', 'elicitation-1')),
        V: out(
          req('b-2', 'elicitation/create', {
            mode: 'form',
            message: CONTINUE_URL_MESSAGE,
            requestedSchema: CONTINUE_SCHEMA,
          }),
        ),
        K: completed('elicitation-1'),
        R: done(),
      });
    });
    expect(calls.map((call) => call.extras)).toEqual([
      {},
      { inputResponses: { login: { action: 'accept' } } },
      { inputResponses: { login: { action: 'accept' } } },
    ]);
  });

  it('progress of every round passes as it comes', () => {
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      const p = (value: number) => upNote(progress(7, value));
      // #region progress
      const round1 = cold('   -a-b-m(i|)', {
        a: p(1),
        b: p(2),
        m: upNote(note('notifications/message', {})),
        i: up(inputRequired({ name: FORM })),
      });
      const answers = hot('  -------n', { n: answer('b-1', NAME) });
      const round2 = cold('          -c-d-(R|)', { c: p(2), d: p(1), R: up(FINAL, 2) });
      const expected = '     -A-B--Q-C-D-(R|)';
      // #endregion progress
      const { output$ } = drive(helpers, { rounds: [round1, round2], answers });
      expectObservable(output$).toBe(expected, {
        A: { type: 'progress', frame: progress(7, 1) },
        B: { type: 'progress', frame: progress(7, 2) },
        Q: out(ASK_FORM('b-1')),
        C: { type: 'progress', frame: progress(7, 2) },
        D: { type: 'progress', frame: progress(7, 1) },
        R: done(),
      });
    });
  });

  it('late and duplicate answers are dropped', () => {
    let calls: { round: number; extras: RetryExtras }[] = [];
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      // #region late-answers
      const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM })) });
      const answers = hot('  ---n-d--x-r-l', {
        n: answer('b-1', NAME),
        d: answer('b-1', { action: 'decline' }),
        x: answer('b-99', DIRS),
        r: answer('b-2', DIRS),
        l: answer('b-2', { roots: [] }),
      });
      const round2 = cold('      -(j|)', { j: up(inputRequired({ name: ROOTS }), 2) });
      const round3 = cold('             -(R|)', { R: up(FINAL, 3) });
      const expected = '     -Q--W------(R|)';
      // #endregion late-answers
      const driven = drive(helpers, { rounds: [round1, round2, round3], answers });
      calls = driven.calls;
      expectObservable(driven.output$).toBe(expected, {
        Q: out(ASK_FORM('b-1')),
        W: out(ASK_ROOTS('b-2')),
        R: done(),
      });
    });
    expect(calls.map((call) => call.extras)).toEqual([
      {},
      { inputResponses: { name: NAME } },
      { inputResponses: { name: DIRS } },
    ]);
  });

  it('requestState is echoed only when the last result had one', () => {
    const STATE = 'eyJ0IjoxfQ==\u00e9 "quoted" \\n';
    let calls: { round: number; extras: RetryExtras }[] = [];
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      // #region request-state
      const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM }, STATE)) });
      const answers = hot('  ---a---b', { a: answer('b-1', NAME), b: answer('b-2', NAME) });
      const round2 = cold('      -(j|)', { j: up(inputRequired({ name: FORM }), 2) });
      const round3 = cold('          -(R|)', { R: up(FINAL, 3) });
      const expected = '     -Q--P---(R|)';
      // #endregion request-state
      const driven = drive(helpers, { rounds: [round1, round2, round3], answers });
      calls = driven.calls;
      expectObservable(driven.output$).toBe(expected, {
        Q: out(ASK_FORM('b-1')),
        P: out(ASK_FORM('b-2')),
        R: done(),
      });
    });
    expect(calls.map((call) => call.extras)).toEqual([
      {},
      { inputResponses: { name: NAME }, requestState: STATE },
      { inputResponses: { name: NAME } },
    ]);
  });

  it('an upstream exit during a wait cancels the outstanding bridge requests before the error', () => {
    const exited = bridgeError('upstream_exited');
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      // #region upstream-exit
      const round1 = cold('   -(i|)', { i: up(inputRequired({ login: LOGIN, name: FORM })) });
      const answers = hot('  ---a', { a: answer('b-1', { action: 'accept' }) });
      const abort = hot('    ------e', { e: { reason: 'the upstream server stopped', error: exited } });
      const expected = '     - (QP) 1ms (CKX|)';
      // #endregion upstream-exit
      const { output$ } = drive(helpers, { rounds: [round1], answers, abort });
      expectObservable(output$).toBe(expected, {
        Q: out(ASK_LOGIN('b-1', 'elicitation-1')),
        P: out(ASK_FORM('b-2')),
        C: cancelled('b-2', 'the upstream server stopped'),
        K: completed('elicitation-1'),
        X: failed(exited),
      });
    });
  });

  it('a failed exchange completes the accepted URLs before its error', () => {
    const timeout = new BridgeError('timeout', { detail: 'tools/call: no response in 5 ms' });
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      // #region failed-exchange
      const round1 = cold('   -(i|)', { i: up(inputRequired({ login: LOGIN })) });
      const answers = hot('  --a', { a: answer('b-1', { action: 'accept' }) });
      const round2 = cold('     -----#', NO_EVENTS, timeout);
      const expected = '     -Q-----(KX|)';
      // #endregion failed-exchange
      const { output$ } = drive(helpers, { rounds: [round1, round2], answers });
      expectObservable(output$).toBe(expected, {
        Q: out(ASK_LOGIN('b-1', 'elicitation-1')),
        K: completed('elicitation-1'),
        X: failed(bridgeError('timeout', 'tools/call: no response in 5 ms')),
      });
    });
  });

  it('a refused request state is logged with the input wait of the round before', () => {
    const log = vi.fn();
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      // #region refused-state
      const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM }, 'old')) });
      const answers = hot('  ------n', { n: answer('b-1', NAME) });
      const round2 = cold('         -(x|)', { x: upError(errWith(2, -32602, 'expired')) });
      const expected = '     -Q-----(R|)';
      // #endregion refused-state
      const { output$ } = drive(helpers, { rounds: [round1, round2], answers, log });
      const text = refusedStateText('expired', 'Run the tool again.');
      expectObservable(output$).toBe(expected, {
        Q: out(ASK_FORM('b-1')),
        R: done({ content: [{ type: 'text', text }], isError: true }),
      });
    });
    expect(log).toHaveBeenCalledWith(
      'warn',
      'the upstream server refused the request state after an input wait of 5 ms',
    );
  });

  it('a second answer before the round ends is dropped', () => {
    let calls: { round: number; extras: RetryExtras }[] = [];
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM, dirs: ROOTS })) });
      const answers = hot('  ---n-d-x-r', {
        n: answer('b-1', NAME),
        d: answer('b-1', { action: 'decline' }),
        x: answer('b-99', { action: 'decline' }),
        r: answer('b-2', DIRS),
      });
      const round2 = cold('           -(R|)', { R: up(FINAL, 2) });
      const expected = '     - (QW) 5ms (R|)';
      const driven = drive(helpers, { rounds: [round1, round2], answers });
      calls = driven.calls;
      expectObservable(driven.output$).toBe(expected, {
        Q: out(ASK_FORM('b-1')),
        W: out(ASK_ROOTS('b-2')),
        R: done(),
      });
    });
    expect(calls).toEqual([
      { round: 1, extras: {} },
      { round: 2, extras: { inputResponses: { name: NAME, dirs: DIRS } } },
    ]);
  });

  it('a throw of exchange, nextBridgeId, nextElicitationId, checks or log ends the request with an error output', () => {
    const unhandled = unhandledErrorsOf(() => {
      scheduler().run((helpers) => {
        const { expectObservable } = helpers;
        // The first exchange throws instead of returning its observable: as if it had failed.
        const exchange = () => {
          throw new BridgeError('upstream_exited');
        };
        const { output$ } = drive(helpers, { rounds: [], deps: { exchange } });
        expectObservable(output$).toBe('(X|)', { X: failed(bridgeError('upstream_exited')) });
      });
      scheduler().run((helpers) => {
        const { cold, expectObservable, expectSubscriptions } = helpers;
        // A round limit that throws: the round's exchange is not subscribed.
        const round1 = cold('-(r|)', { r: up(FINAL) });
        const limitMs = () => {
          throw new Error('a bug');
        };
        const { output$ } = drive(helpers, { rounds: [round1], deps: { limitMs } });
        expectObservable(output$).toBe('(X|)', { X: failed(bridgeError('internal')) });
        expectSubscriptions(round1.subscriptions).toBe([]);
      });
    });
    expect(unhandled).toEqual([]);
  });

  it('a round with a limit is cut at it, after its failure is made, and the failure is the error output', () => {
    const order: string[] = [];
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable, expectSubscriptions } = helpers;
      const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM })) });
      const answers = hot('  ---n', { n: answer('b-1', NAME) });
      // Round 2 never answers: its limit (4 ms from its start at frame 3) ends it at frame 7.
      const round2 = new Observable<ExchangeEvent>(() => () => order.push('cut'));
      const expected = '     -Q 5ms (X|)';
      const round1Subs = '   ^!';
      const { output$ } = drive(helpers, {
        rounds: [round1, round2],
        answers,
        deps: {
          // Round 1 answers within its limit; round 2 does not.
          limitMs: (round) => (round === 1 ? 2 : 4),
          limitFailure: (round) => {
            order.push(`failure of round ${round}`);
            return new BridgeError('timeout', { detail: `round ${round}: no response in 4 ms` });
          },
        },
      });
      expectObservable(output$).toBe(expected, {
        Q: out(ASK_FORM('b-1')),
        X: failed(bridgeError('timeout', 'round 2: no response in 4 ms')),
      });
      expectSubscriptions(round1.subscriptions).toBe(round1Subs);
    });
    expect(order).toEqual(['failure of round 2', 'cut']);
  });

  // How one round holds together (operators/internal/): not rules of the protocol, but what the rules rest on.
  describe('the rounds machinery', () => {
    it('an answer sent while its bridge request is delivered is not missed', () => {
      // An embedded client may answer synchronously, from inside the delivery of the request.
      const answers = new Subject<ClientAnswer>();
      const seen: RoundOutput[] = [];
      scheduler().run((helpers) => {
        const round1 = helpers.cold('-(i|)', { i: up(inputRequired({ name: FORM })) });
        const round2 = helpers.cold('-(R|)', { R: up(FINAL, 2) });
        const { output$ } = drive(helpers, { rounds: [round1, round2], answers });
        output$.subscribe((output) => {
          seen.push(output);
          if (output.type === 'toClient') answers.next(answer('b-1', NAME));
        });
        helpers.flush();
      });
      expect(seen).toEqual([out(ASK_FORM('b-1')), done()]);
    });

    it('an exchange is let go at its response, and the input timeout ends the request then', () => {
      scheduler().run((helpers) => {
        const { cold, hot, expectObservable, expectSubscriptions } = helpers;
        const round1 = cold('   -i 19ms |', { i: up(inputRequired({ name: FORM })) });
        const answers = hot('  -------------n', { n: answer('b-1', NAME) });
        const round2 = cold('   -(R|)', { R: up(FINAL, 2) });
        const expected = '     -Q 9ms (CX|)';
        const answerSubs = '   -^---------!';
        const round1Subs = '   ^!';
        const { output$ } = drive(helpers, {
          rounds: [round1, round2],
          answers,
          config: { inputTimeoutMs: 10 },
        });
        expectObservable(output$).toBe(expected, {
          Q: out(ASK_FORM('b-1')),
          C: cancelled('b-1', 'no answer in time'),
          X: failed(bridgeError('input_timeout', 'no answers in 10 ms (input requests of the round: 1)')),
        });
        expectSubscriptions(answers.subscriptions).toBe(answerSubs);
        expectSubscriptions(round1.subscriptions).toBe(round1Subs);
        expectSubscriptions(round2.subscriptions).toBe([]);
      });
    });

    it('a step that throws while the upstream response is handled ends the request with internal', () => {
      scheduler().run((helpers) => {
        const { cold, expectObservable } = helpers;
        const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM })) });
        const expected = '     -(X|)';
        const nextBridgeId = () => {
          throw new Error('no more ids');
        };
        const { output$ } = drive(helpers, { rounds: [round1], deps: { nextBridgeId } });
        expectObservable(output$).toBe(expected, { X: failed(bridgeError('internal')) });
      });
    });

    it('a step that throws while an answer is handled ends the request with internal', () => {
      // The answer check throws; the checks of the ask (when the round opens) pass.
      const checks = {
        ...ajvInputChecks,
        matchesSpec: (name: Parameters<typeof ajvInputChecks.matchesSpec>[0], value: unknown) => {
          if (name === 'ElicitResult') throw new Error('broken schema');
          return ajvInputChecks.matchesSpec(name, value);
        },
      };
      scheduler().run((helpers) => {
        const { cold, hot, expectObservable, expectSubscriptions } = helpers;
        const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM })) });
        const answers = hot('  ----n', { n: answer('b-1', NAME) });
        const round2 = cold('   -(R|)', { R: up(FINAL, 2) });
        const expected = '     -Q--(X|)';
        const { output$ } = drive(helpers, { rounds: [round1, round2], answers, deps: { checks } });
        expectObservable(output$).toBe(expected, {
          Q: out(ASK_FORM('b-1')),
          X: failed(bridgeError('internal')),
        });
        expectSubscriptions(round2.subscriptions).toBe([]);
      });
    });
  });

  // Each dependency that throws (rule 18); the throws of nextBridgeId and of the answer checks are above.
  describe('dependencies that throw', () => {
    it('an exchange of a retry round that throws completes the accepted URLs before the error', () => {
      const unhandled = unhandledErrorsOf(() => {
        scheduler().run((helpers) => {
          const { cold, hot, expectObservable } = helpers;
          const round1 = cold('   -(i|)', { i: up(inputRequired({ login: LOGIN })) });
          const answers = hot('  ---a', { a: answer('b-1', { action: 'accept' }) });
          const expected = '     -Q-(KX|)';
          // rounds[1] is missing: drive's exchange throws for round 2.
          const { output$ } = drive(helpers, { rounds: [round1], answers });
          expectObservable(output$).toBe(expected, {
            Q: out(ASK_LOGIN('b-1', 'elicitation-1')),
            K: completed('elicitation-1'),
            X: failed(bridgeError('internal')),
          });
        });
      });
      expect(unhandled).toEqual([]);
    });

    it('a nextElicitationId that throws ends the request with internal', () => {
      const unhandled = unhandledErrorsOf(() => {
        scheduler().run((helpers) => {
          const { cold, expectObservable } = helpers;
          const round1 = cold('   -(i|)', { i: up(inputRequired({ login: LOGIN })) });
          const nextElicitationId = () => {
            throw new Error('no more ids');
          };
          const { output$ } = drive(helpers, { rounds: [round1], deps: { nextElicitationId } });
          expectObservable(output$).toBe('-(X|)', { X: failed(bridgeError('internal')) });
        });
      });
      expect(unhandled).toEqual([]);
    });

    it('a formValidator that throws ends the request with internal', () => {
      const checks = {
        ...ajvInputChecks,
        formValidator: () => {
          throw new Error('broken compiler');
        },
      };
      const unhandled = unhandledErrorsOf(() => {
        scheduler().run((helpers) => {
          const { cold, expectObservable } = helpers;
          const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM })) });
          const { output$ } = drive(helpers, { rounds: [round1], deps: { checks } });
          expectObservable(output$).toBe('-(X|)', { X: failed(bridgeError('internal')) });
        });
      });
      expect(unhandled).toEqual([]);
    });

    it('a log that throws ends the request with internal instead of the outputs of its line', () => {
      const log = () => {
        throw new Error('the log is gone');
      };
      const unhandled = unhandledErrorsOf(() => {
        scheduler().run((helpers) => {
          const { cold, hot, expectObservable } = helpers;
          const round1 = cold('   -(i|)', { i: up(inputRequired({ name: FORM }, 'old')) });
          const answers = hot('  ------n', { n: answer('b-1', NAME) });
          const round2 = cold('         -(x|)', { x: upError(errWith(2, -32602, 'expired')) });
          const { output$ } = drive(helpers, { rounds: [round1, round2], answers, log });
          expectObservable(output$).toBe('-Q-----(X|)', {
            Q: out(ASK_FORM('b-1')),
            X: failed(bridgeError('internal')),
          });
        });
      });
      expect(unhandled).toEqual([]);
    });
  });

  describe('checks of the configuration', () => {
    it('refuses a config out of range when it is built', () => {
      const deps = {} as Parameters<typeof driveInputRounds>[1];
      const config = { ...DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG, method: 'tools/call' };
      expect(() => driveInputRounds({ ...config, maxRounds: 0 }, deps)).toThrow(RangeError);
      expect(() => driveInputRounds({ ...config, maxInputRequests: 0 }, deps)).toThrow(RangeError);
      expect(() => driveInputRounds({ ...config, inputTimeoutMs: -1 }, deps)).toThrow(RangeError);
    });
  });
});
