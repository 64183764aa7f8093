/**
 * Timing and order rules of a forwarded request (docs/requests.md#requests-deadlines,
 * docs/requests.md#requests-progress, docs/requests.md#requests-slow-lines,
 * docs/input-rounds.md#input-rounds): the operator that createBridge runs for every forwarded
 * request. Lower case is inbound (upstream events, client answers), upper case is outbound;
 * 1 frame = 1 ms. Each upstream round is a cold picked from `rounds`; `cuts` lists each exchange
 * cut before its end, with the time and the reason it sends upstream.
 */
import { Observable, asyncScheduler } from 'rxjs';
import type { RunHelpers } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FORWARD_REQUEST_CONFIG, forwardRequest } from '../operators/forwardRequest.js';
import type { ForwardAbort, ForwardRequestConfig, ForwardRequestDeps } from '../operators/forwardRequest.js';
import type { ClientAnswer, RoundOutput } from '../operators/driveInputRounds.js';
import { ajvInputChecks } from '../src/codec/input/schemas.js';
import type { ExchangeEvent } from '../src/ports/upstream.js';
import type { JsonObject, RequestFrame, RequestId } from '../src/protocol/jsonrpc.js';
import { errWith, inputRequired, progress, req, res } from '../src/testing/frames.js';
import {
  clientAnswer,
  errorOutput,
  notificationEvent,
  responseEvent,
  resultOutput,
} from '../src/testing/events.js';
import { createProtocolScheduler } from '../src/testing/scheduler.js';
import { wireError } from '../test/helpers/wireErrors.js';
import { ASK_FORM, FINAL, FORM, NAME } from './inputFixtures.js';
import { unhandledErrorsOf } from './unhandledErrors.js';

const scheduler = () => createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

const ASK_B1: RoundOutput = { type: 'toClient', frame: ASK_FORM('b-1') };
const META = { 'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' } };

const up = (result: JsonObject, id = 1): ExchangeEvent => responseEvent(res(id, result));
const upProgress = (value: number): ExchangeEvent => notificationEvent(progress(7, value));
const toClientProgress = (value: number): RoundOutput => ({
  type: 'progress',
  frame: progress('tok', value),
});
const withToken = (id: RequestId, method: string, params: JsonObject = {}): RequestFrame =>
  req(id, method, { ...params, _meta: { progressToken: 'tok' } });
const timedOut = (detail: string): RoundOutput => errorOutput(wireError('timeout', detail));

interface Scenario {
  readonly rounds: readonly Observable<ExchangeEvent>[];
  readonly config?: Partial<ForwardRequestConfig>;
  readonly answers?: Observable<ClientAnswer>;
  readonly deps?: Partial<ForwardRequestDeps<RoundOutput>>;
  readonly noChecks?: boolean;
}

/** The operator with recording deps: upstream calls, cuts, log lines, and the stops by id. */
function forward({ hot }: RunHelpers, scenario: Scenario) {
  const calls: { method: string; params: JsonObject }[] = [];
  const cuts: string[] = [];
  const logs: string[] = [];
  const stops = new Map<RequestId, (abort: ForwardAbort) => void>();
  let bridgeIds = 0;
  // Virtual time inside run(): asyncScheduler is the test scheduler's there.
  const now = (): number => asyncScheduler.now();
  const deps: ForwardRequestDeps<RoundOutput> = {
    upstream: {
      request: (method, params, options) => {
        const cold = scenario.rounds[calls.length];
        calls.push({ method, params });
        if (cold === undefined) throw new Error(`no upstream round ${calls.length}`);
        return new Observable<ExchangeEvent>((subscriber) => {
          let ended = false;
          const inner = cold.subscribe({
            next: (event) => {
              // A response ends the exchange: a cut after it sends nothing upstream.
              if (event.type === 'response') ended = true;
              subscriber.next(event);
            },
            error: (error: unknown) => {
              ended = true;
              subscriber.error(error);
            },
            complete: () => {
              ended = true;
              subscriber.complete();
            },
          });
          return () => {
            inner.unsubscribe();
            if (!ended) cuts.push(`${now()} ${options?.cancelReason?.() ?? ''}`);
          };
        });
      },
    },
    meta: () => META,
    toClient: (_request, output) => output,
    track: (id, stop) => void stops.set(id, stop),
    untrack: (id) => void stops.delete(id),
    rounds: {
      answers$: scenario.answers ?? hot<ClientAnswer>('-'),
      clientCapabilities: { elicitation: { form: {} } },
      nextBridgeId: () => `b-${++bridgeIds}`,
      nextElicitationId: () => 'elicitation-1',
      ...(scenario.noChecks === true ? {} : { checks: ajvInputChecks }),
    },
    log: (level, text) => void logs.push(`${level}@${now()}: ${text}`),
    ...scenario.deps,
  };
  const run = forwardRequest({ ...DEFAULT_FORWARD_REQUEST_CONFIG, ...scenario.config }, deps);
  return { run, calls, cuts, logs, stops };
}

describe('forwardRequest', () => {
  it('the response of round 1 is the last output: its result or its error', () => {
    const seen: { method: string; params: JsonObject }[][] = [];
    scheduler().run((helpers) => {
      const { cold, expectObservable } = helpers;
      const listed = forward(helpers, { rounds: [cold('--(r|)', { r: up({ tools: [] }) })] });
      expectObservable(listed.run(req(1, 'tools/list', { cursor: 'c' }))).toBe('--(R|)', {
        R: resultOutput({ tools: [] }),
      });
      const failed = forward(helpers, {
        rounds: [cold('-(e|)', { e: responseEvent(errWith(2, -32602, 'bad name')) })],
      });
      expectObservable(failed.run(req(2, 'tools/call', { name: 'x' }))).toBe('-(E|)', {
        E: errorOutput({ code: -32602, message: 'bad name' }),
      });
      seen.push(listed.calls, failed.calls);
    });
    expect(seen).toEqual([
      [{ method: 'tools/list', params: { cursor: 'c', _meta: META } }],
      [{ method: 'tools/call', params: { name: 'x', _meta: META } }],
    ]);
    // An exchange in memory that answers while it is subscribed, and never completes, is let go.
    const ends: string[] = [];
    const inMemory = new Observable<ExchangeEvent>((subscriber) => {
      subscriber.next(up({ tools: [] }));
      return () => ends.push('unsubscribed');
    });
    const outputs: RoundOutput[] = [];
    scheduler().run((helpers) => {
      const { run } = forward(helpers, { rounds: [], deps: { upstream: { request: () => inMemory } } });
      run(req(3, 'tools/list')).subscribe((output) => outputs.push(output));
    });
    expect(outputs).toEqual([resultOutput({ tools: [] })]);
    expect(ends).toEqual(['unsubscribed']);
  });

  it('progress reaches the client only with its token and only while it increases across rounds', () => {
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      const rounds = [
        cold('-a-b-c-(i|)', {
          a: upProgress(1),
          b: upProgress(1),
          c: upProgress(2),
          i: up(inputRequired({ name: FORM })),
        }),
        cold('         -d-e-(r|)', { d: upProgress(1.5), e: upProgress(3), r: up(FINAL, 2) }),
      ];
      const answers = hot('        ---------n', { n: clientAnswer('b-1', NAME) });
      const expected = '    -A---C-Q----E-(R|)';
      const { run } = forward(helpers, { rounds, answers });
      expectObservable(run(withToken(1, 'tools/call', { name: 'greet' }))).toBe(expected, {
        A: toClientProgress(1),
        C: toClientProgress(2),
        Q: ASK_B1,
        E: toClientProgress(3),
        R: resultOutput(FINAL),
      });
      const untokened = forward(helpers, {
        rounds: [cold('-a-(r|)', { a: upProgress(1), r: up({ tools: [] }) })],
      });
      expectObservable(untokened.run(req(2, 'tools/list'))).toBe('---(R|)', {
        R: resultOutput({ tools: [] }),
      });
    });
  });

  it('round 1 has the limit of its method, and progress does not extend it', () => {
    scheduler().run((helpers) => {
      const { cold, expectObservable } = helpers;
      const config = { listTimeoutMs: 5, callTimeoutMs: 8, readTimeoutMs: 6, slowFirstMs: 1000 };
      const slow = () => cold('-p-p-p-p-p-p-p-p-p-(r|)', { p: upProgress(1), r: up({}) });
      const cases = [
        ['tools/list', '-P---(E|)', 'tools/list: no response in 5 ms'],
        ['tools/call', '-P------(E|)', 'tools/call: no response in 8 ms'],
        ['prompts/get', '-P----(E|)', 'prompts/get: no response in 6 ms'],
      ] as const;
      for (const [method, expected, detail] of cases) {
        const { run } = forward(helpers, { rounds: [slow()], config });
        expectObservable(run(withToken(1, method))).toBe(expected, {
          P: toClientProgress(1),
          E: timedOut(detail),
        });
      }
      // A limit longer than the wait for the first slow-request line counts from the start too.
      const { run } = forward(helpers, { rounds: [slow()], config: { listTimeoutMs: 5, slowFirstMs: 3 } });
      expectObservable(run(withToken(1, 'tools/list'))).toBe('-P---(E|)', {
        P: toClientProgress(1),
        E: timedOut('tools/list: no response in 5 ms'),
      });
    });
  });

  it("at the limit the exchange is cut with the reason 'the request timed out' and a timeout error is the last output", () => {
    let cuts: string[] = [];
    scheduler().run((helpers) => {
      const { cold, expectObservable, expectSubscriptions } = helpers;
      const exchange = cold('------(r|)', { r: up({}) });
      const forwarded = forward(helpers, { rounds: [exchange], config: { callTimeoutMs: 4 } });
      cuts = forwarded.cuts;
      expectObservable(forwarded.run(req(1, 'tools/call'))).toBe('----(E|)', {
        E: timedOut('tools/call: no response in 4 ms'),
      });
      expectSubscriptions(exchange.subscriptions).toBe('^---!');
    });
    expect(cuts).toEqual(['4 the request timed out']);
  });

  it('a client cancel cuts the exchange with its reason and sends nothing', () => {
    let cuts: string[] = [];
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      const forwarded = forward(helpers, { rounds: [cold('-a----(r|)', { a: upProgress(1), r: up({}) })] });
      cuts = forwarded.cuts;
      hot('---c').subscribe(() => forwarded.stops.get(1)?.({ reason: 'the client canceled the request' }));
      expectObservable(forwarded.run(withToken(1, 'tools/call'))).toBe('-A-|', { A: toClientProgress(1) });
    });
    expect(cuts).toEqual(['3 the client canceled the request']);
  });

  it('an abort with an error cuts the exchange and answers with that error', () => {
    let cuts: string[] = [];
    const lost = wireError('upstream_exited');
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      const forwarded = forward(helpers, { rounds: [cold('-----(r|)', { r: up({}) })] });
      cuts = forwarded.cuts;
      hot('--x').subscribe(() =>
        forwarded.stops.get(1)?.({ reason: 'the upstream server exited', error: lost }),
      );
      expectObservable(forwarded.run(req(1, 'tools/list'))).toBe('--(E|)', { E: errorOutput(lost) });
    });
    expect(cuts).toEqual(['2 the upstream server exited']);
  });

  it('input_required of tools/call, prompts/get or resources/read starts the input rounds', () => {
    const calls: { method: string; params: JsonObject }[][] = [];
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      for (const method of ['tools/call', 'prompts/get', 'resources/read']) {
        const rounds = [
          cold('-(i|)', { i: up(inputRequired({ name: FORM })) }),
          cold('   -(r|)', { r: up(FINAL, 2) }),
        ];
        const forwarded = forward(helpers, {
          rounds,
          answers: hot('---n', { n: clientAnswer('b-1', NAME) }),
        });
        expectObservable(forwarded.run(req(1, method, { name: 'greet' }))).toBe('-Q--(R|)', {
          Q: ASK_B1,
          R: resultOutput(FINAL),
        });
        calls.push(forwarded.calls);
      }
    });
    expect(calls.map((rounds) => rounds.map((call) => call.method))).toEqual([
      ['tools/call', 'tools/call'],
      ['prompts/get', 'prompts/get'],
      ['resources/read', 'resources/read'],
    ]);
    expect(calls[0]![1]!.params).toEqual({ name: 'greet', inputResponses: { name: NAME }, _meta: META });
  });

  it('input_required of another method is invalid_response', () => {
    scheduler().run((helpers) => {
      const { cold, expectObservable } = helpers;
      const asked = inputRequired({ name: FORM });
      const { run } = forward(helpers, { rounds: [cold('-(i|)', { i: up(asked) })] });
      expectObservable(run(req(1, 'tools/list'))).toBe('-(E|)', {
        E: errorOutput(wireError('invalid_response', 'an input_required result for tools/list')),
      });
    });
  });

  it('each later round has its own limit from its start', () => {
    let cuts: string[] = [];
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      const rounds = [
        cold('---(i|)', { i: up(inputRequired({ name: FORM })) }),
        cold('    --------(r|)', { r: up(FINAL, 2) }),
      ];
      const answers = hot('    ----n', { n: clientAnswer('b-1', NAME) });
      const forwarded = forward(helpers, { rounds, answers, config: { callTimeoutMs: 5 } });
      cuts = forwarded.cuts;
      expectObservable(forwarded.run(req(1, 'tools/call'))).toBe('---Q-----(E|)', {
        Q: ASK_B1,
        E: timedOut('tools/call: no response in 5 ms'),
      });
    });
    expect(cuts).toEqual(['9 the request timed out']);
  });

  it('a slow request logs a line after slowFirstMs, then every slowEveryMs, saying what it waits for', () => {
    let logs: string[] = [];
    scheduler().run((helpers) => {
      const { cold, hot, expectObservable } = helpers;
      const rounds = [
        cold('4000ms (i|)', { i: up(inputRequired({ name: FORM })) }),
        cold('1000ms (r|)', { r: up(FINAL, 2) }),
      ];
      const answers = hot('9000ms n', { n: clientAnswer('b-1', NAME) });
      const forwarded = forward(helpers, {
        rounds,
        answers,
        config: { slowFirstMs: 2000, slowEveryMs: 3000 },
      });
      logs = forwarded.logs;
      expectObservable(forwarded.run(req(1, 'tools/call'))).toBe('4000ms Q 5999ms (R|)', {
        Q: ASK_B1,
        R: resultOutput(FINAL),
      });
    });
    expect(logs.filter((line) => line.includes('still waiting'))).toEqual([
      'info@2000: still waiting for the upstream server: tools/call (request 1, 2 s)',
      'info@5000: still waiting for the answers of the client to the input requests of tools/call (request 1, 5 s)',
      'info@8000: still waiting for the answers of the client to the input requests of tools/call (request 1, 8 s)',
    ]);
  });

  it('without checks an input request ends the request with internal and a log line', () => {
    let logs: string[] = [];
    scheduler().run((helpers) => {
      const { cold, expectObservable } = helpers;
      const forwarded = forward(helpers, {
        rounds: [cold('-(i|)', { i: up(inputRequired({ name: FORM })) })],
        noChecks: true,
      });
      logs = forwarded.logs;
      expectObservable(forwarded.run(req(1, 'tools/call'))).toBe('-(E|)', {
        E: errorOutput(wireError('internal')),
      });
    });
    expect(logs).toEqual([
      'err@1: request 1 (tools/call): the bridge has no input checks (BridgeDeps.checks), thus it cannot send input requests to the client',
    ]);
  });

  it('a throw of meta or of the exchange is an error output; a throw of toClient or log errors the output', () => {
    const bug = new Error('a bug');
    const throwing = (): never => {
      throw bug;
    };
    const unhandled = unhandledErrorsOf(() => {
      scheduler().run((helpers) => {
        const { cold, expectObservable } = helpers;
        const internal = errorOutput(wireError('internal'));
        const badMeta = forward(helpers, {
          rounds: [cold('-(r|)', { r: up({}) })],
          deps: { meta: throwing },
        });
        expectObservable(badMeta.run(req(1, 'tools/list'))).toBe('(E|)', { E: internal });
        const badUpstream = forward(helpers, { rounds: [], deps: { upstream: { request: throwing } } });
        expectObservable(badUpstream.run(req(2, 'tools/list'))).toBe('(E|)', { E: internal });
        const badShape = forward(helpers, {
          rounds: [cold('-(r|)', { r: up({}) })],
          deps: { toClient: throwing },
        });
        expectObservable(badShape.run(req(3, 'tools/list'))).toBe('-#', undefined, bug);
        const exchange = cold('----(r|)', { r: up({}) });
        const badLog = forward(helpers, {
          rounds: [exchange],
          config: { slowFirstMs: 2 },
          deps: { log: throwing },
        });
        expectObservable(badLog.run(req(4, 'tools/list'))).toBe('--#', undefined, bug);
      });
    });
    expect(unhandled).toEqual([]);
  });

  it('a request stopped when it is tracked starts no exchange', () => {
    let calls: unknown[] = [];
    const closed = wireError('upstream_exited');
    scheduler().run((helpers) => {
      const { cold, expectObservable } = helpers;
      const forwarded = forward(helpers, {
        rounds: [cold('-(r|)', { r: up({}) })],
        deps: { track: (_id, stop) => stop({ reason: 'the client closed the connection', error: closed }) },
      });
      calls = forwarded.calls;
      expectObservable(forwarded.run(req(1, 'tools/list'))).toBe('(E|)', { E: errorOutput(closed) });
    });
    expect(calls).toEqual([]);
  });

  describe('checks', () => {
    it('refuses a negative limit when it is built', () => {
      const deps = {} as ForwardRequestDeps<RoundOutput>;
      expect(() => forwardRequest({ ...DEFAULT_FORWARD_REQUEST_CONFIG, listTimeoutMs: -1 }, deps)).toThrow(
        'listTimeoutMs must be ≥ 0',
      );
    });
  });
});
