/**
 * The per-method time limits of createBridge in virtual time (docs/requests.md#requests-deadlines, docs/requests.md#requests-slow-lines):
 * a forwarded request without an upstream answer fails with -32603 `timeout` at its limit, and
 * its upstream exchange is unsubscribed (which sends `notifications/cancelled` on stdio). The
 * limits of the executable are 120 s and 1 h, too long for a process test; here they are short.
 */
import { NEVER, of } from 'rxjs';
import type { Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import type { BridgeLimits } from '../../src/bridge/config.js';
import { createBridge } from '../../src/bridge/createBridge.js';
import type { Logger } from '../../src/ports/logger.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import type { Frame, JsonObject } from '../../src/protocol/jsonrpc.js';
import type { Inbound } from '../../src/protocol/parseLine.js';
import { progress, req, res } from '../../src/testing/frames.js';
import { wireErrorFrame } from '../helpers/wireErrors.js';
import { createFakeUpstream } from '../../src/testing/fakeUpstream.js';
import type { FakeRequest } from '../../src/testing/fakeUpstream.js';
import { createProtocolScheduler } from '../../src/testing/scheduler.js';
import type { InputSchemaChecks } from '../../src/codec/input/checks.js';
import { ajvInputChecks } from '../../src/codec/input/schemas.js';

const scheduler = (): TestScheduler =>
  createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

const LIMITS: BridgeLimits = {
  ...DEFAULT_LIMITS,
  listTimeoutMs: 300,
  readTimeoutMs: 500,
  callTimeoutMs: 1_000,
  slowFirstMs: 10_000,
  slowEveryMs: 30_000,
};

const INITIALIZE_RESULT: JsonObject = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {}, prompts: {} },
  serverInfo: { name: 'fake', version: '1.0.0' },
};

const frame = (value: Frame): Inbound => ({ kind: 'frame', frame: value });

// Client lines (inbound, lower case) and frames for the client (outbound, upper case).
const client: Record<string, Inbound> = {
  i: frame(
    req(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    }),
  ),
  c: frame(req(2, 'tools/call', { name: 'wait', arguments: {} })),
  l: frame(req('list', 'tools/list', {})),
  g: frame(req(0, 'prompts/get', { name: 'greet' })),
  p: frame(req(3, 'ping')),
  t: frame(req(4, 'tools/call', { name: 'wait', arguments: {}, _meta: { progressToken: 'tok' } })),
  m: frame(
    req(5, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'n', value: '' },
    }),
  ),
  r: frame(req(6, 'resources/read', { uri: 'file:///a' })),
  x: frame(req(7, 'resources/templates/list', {})),
  k: frame({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } }),
};
const out: Record<string, Frame> = {
  I: res(1, INITIALIZE_RESULT),
  C: wireErrorFrame(2, 'timeout', 'tools/call: no response in 1 s'),
  L: wireErrorFrame('list', 'timeout', 'tools/list: no response in 300 ms'),
  G: wireErrorFrame(0, 'timeout', 'prompts/get: no response in 500 ms'),
  P: res(3, {}),
  T: wireErrorFrame(4, 'timeout', 'tools/call: no response in 1 s'),
  M: wireErrorFrame(5, 'timeout', 'completion/complete: no response in 300 ms'),
  R: wireErrorFrame(6, 'timeout', 'resources/read: no response in 500 ms'),
  X: wireErrorFrame(7, 'timeout', 'resources/templates/list: no response in 300 ms'),
  A: res('list', { tools: [] }),
  1: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1 } },
  2: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 2 } },
};

// Upstream exchange events (inbound): a tools/list answer, progress notes with the upstream token.
const up: Record<string, ExchangeEvent> = {
  a: { type: 'response', frame: res(2, { resultType: 'complete', tools: [] }) },
  1: { type: 'notification', frame: progress(2, 1) },
  2: { type: 'notification', frame: progress(2, 2) },
};

/** The methods the bridge forwards in these tests: each one answers with its exchange of `exchanges`, or never. */
const FORWARDED = [
  'tools/call',
  'tools/list',
  'prompts/get',
  'completion/complete',
  'resources/read',
  'resources/templates/list',
];

/** A bridge over a fake upstream that answers server/discover and leaves every other request open. */
function setup(
  ts: TestScheduler,
  exchanges: Record<string, Observable<ExchangeEvent>>,
  limits: BridgeLimits = LIMITS,
  checks: InputSchemaChecks | 'none' = ajvInputChecks,
) {
  const lines: string[] = [];
  const fake = createFakeUpstream({
    serverInfo: { name: 'fake', version: '1.0.0' },
    capabilities: { tools: {}, prompts: {} },
    methods: Object.fromEntries(FORWARDED.map((method) => [method, () => exchanges[method] ?? NEVER])),
  });
  const calls = fake.requests;
  const logger: Logger = {
    log: (scope, level, text) => lines.push(`${scope}: ${level}: ${text}`),
    enabled: () => true,
  };
  const bridge = createBridge(
    { version: '9.9.9', fallbackName: 'fake', limits },
    { connect: () => of(fake.connection), logger, scheduler: ts, ...(checks === 'none' ? {} : { checks }) },
  );
  return { bridge, calls, lines };
}

describe('time limits of forwarded requests', () => {
  it('fails tools/list, prompts/get and tools/call at their limits with timeout, and cancels each exchange', () => {
    const ts = scheduler();
    let calls: readonly FakeRequest[] = [];
    ts.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const exchanges = {
        'tools/call': cold<ExchangeEvent>('-'),
        'tools/list': cold<ExchangeEvent>('-'),
        'prompts/get': cold<ExchangeEvent>('-'),
      };
      const fake = setup(ts, exchanges);
      calls = fake.calls;
      // i at 0, c at 5, l at 6, g at 7; limits 1 s, 300 ms and 500 ms.
      const input = hot('i 4ms c l g', client);
      expectObservable(fake.bridge(input), '^ 2s !').toBe('I 305ms L 200ms G 497ms C', out);
      expectSubscriptions(exchanges['tools/list'].subscriptions).toBe('6ms ^ 299ms !');
      expectSubscriptions(exchanges['prompts/get'].subscriptions).toBe('7ms ^ 499ms !');
      expectSubscriptions(exchanges['tools/call'].subscriptions).toBe('5ms ^ 999ms !');
    });
    expect(calls.map((call) => [call.method, call.cancelReason])).toEqual([
      ['server/discover', undefined],
      ['tools/call', 'the request timed out'],
      ['tools/list', 'the request timed out'],
      ['prompts/get', 'the request timed out'],
    ]);
  });

  it('gives completion/complete and resources/templates/list the list limit, resources/read the read limit', () => {
    const ts = scheduler();
    ts.run(({ hot, expectObservable }) => {
      const fake = setup(ts, {});
      const input = hot('i 4ms m r x', client);
      expectObservable(fake.bridge(input), '^ 2s !').toBe('I 304ms M - X 198ms R', out);
    });
  });

  it('stops the clock when the answer comes first', () => {
    const ts = scheduler();
    ts.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const list = cold('   200ms (a|)', up);
      const fake = setup(ts, { 'tools/list': list });
      const input = hot('i 4ms l', client);
      expectObservable(fake.bridge(input), '^ 2s !').toBe('I 204ms A', out);
      expectSubscriptions(list.subscriptions).toBe('5ms ^ 199ms !');
    });
  });

  it('forwards progress before the limit, and progress never extends it', () => {
    const ts = scheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const call = cold('400ms 1 400ms 2 -', up);
      const fake = setup(ts, { 'tools/call': call });
      const input = hot('i 3ms t', client);
      // t at 4: progress at 404 and 805, the limit at 1004.
      expectObservable(fake.bridge(input), '^ 2s !').toBe('I 403ms 1 400ms 2 198ms T', out);
    });
  });

  it('cancels the exchange of a request the client cancels, without a response, before the limit', () => {
    const ts = scheduler();
    let calls: readonly FakeRequest[] = [];
    ts.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const call = cold<ExchangeEvent>('-');
      const fake = setup(ts, { 'tools/call': call });
      calls = fake.calls;
      const input = hot('i 4ms c 99ms k 10ms p', client);
      expectObservable(fake.bridge(input), '^ 2s !').toBe('I 115ms P', out);
      expectSubscriptions(call.subscriptions).toBe('5ms ^ 99ms !');
    });
    expect([calls[1]?.method, calls[1]?.cancelReason]).toEqual([
      'tools/call',
      'the client canceled the request',
    ]);
  });
});

describe('the limit of server/discover', () => {
  it('ends with the answer: an answer that comes at once gets no error at the limit later', () => {
    const ts = scheduler();
    ts.run(({ hot, expectObservable }) => {
      // The fake upstream answers server/discover synchronously, as an in-memory upstream may.
      const fake = setup(ts, {}, { ...LIMITS, discoverTimeoutMs: 1_000 });
      expectObservable(fake.bridge(hot('i 3s p', client)), '^ 5s !').toBe('I 3s P', out);
    });
  });
});
describe('slow-request lines', () => {
  it('logs the first line after 10 s, then one every 30 s, while the upstream does not answer', () => {
    const ts = scheduler();
    let lines: string[] = [];
    ts.run(({ hot, expectObservable }) => {
      const fake = setup(ts, {}, { ...LIMITS, callTimeoutMs: 3_600_000 });
      lines = fake.lines;
      expectObservable(fake.bridge(hot('i 4ms c', client)), '^ 75s !').toBe('I', out);
    });
    expect(lines.filter((line) => line.includes('still waiting'))).toEqual([
      'bridge: info: still waiting for the upstream server: tools/call (request 2, 10 s)',
      'bridge: info: still waiting for the upstream server: tools/call (request 2, 40 s)',
      'bridge: info: still waiting for the upstream server: tools/call (request 2, 70 s)',
    ]);
  });
});

describe('a round-1 limit longer than the wait for the first slow-request line', () => {
  const LONG = { ...LIMITS, callTimeoutMs: 15_000 };
  const elicitingClient = frame(
    req(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: 'c', version: '1' },
    }),
  );
  const askName: ExchangeEvent = {
    type: 'response',
    frame: res(2, {
      resultType: 'input_required',
      inputRequests: {
        name: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          },
        },
      },
    }),
  };

  it('logs the first line at 10 s and fails at the limit, 15 s after the request, with timeout', () => {
    const ts = scheduler();
    let fake: ReturnType<typeof setup> | undefined;
    ts.run(({ hot, expectObservable }) => {
      fake = setup(ts, {}, LONG);
      expectObservable(fake.bridge(hot('i 4ms c', client)), '^ 20s !').toBe('I 15004ms C', {
        ...out,
        C: wireErrorFrame(2, 'timeout', 'tools/call: no response in 15 s'),
      });
    });
    expect(fake?.lines.filter((line) => line.includes('still waiting'))).toEqual([
      'bridge: info: still waiting for the upstream server: tools/call (request 2, 10 s)',
    ]);
    expect(fake?.calls.find((call) => call.method === 'tools/call')?.cancelReason).toBe(
      'the request timed out',
    );
  });

  it('an answer after the first line and before the limit ends the request with no error later', () => {
    const ts = scheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const answer = cold<ExchangeEvent>('12s a', {
        a: { type: 'response', frame: res(2, { resultType: 'complete', content: [] }) },
      });
      const fake = setup(ts, { 'tools/call': answer }, LONG);
      expectObservable(fake.bridge(hot('i 4ms c', client)), '^ 40s !').toBe('I 12004ms D', {
        ...out,
        D: res(2, { content: [] }),
      });
    });
  });

  it('after input_required in round 1 the limit is off: the lines say the bridge waits for the client', () => {
    const ts = scheduler();
    const frames: { at: number; frame: Frame }[] = [];
    let fake: ReturnType<typeof setup> | undefined;
    ts.run(({ hot, cold }) => {
      fake = setup(ts, { 'tools/call': cold('1s (a|)', { a: askName }) }, LONG);
      const subscription = fake
        .bridge(hot('i 4ms c', { ...client, i: elicitingClient }))
        .subscribe((value) => frames.push({ at: ts.now(), frame: value }));
      ts.schedule(() => subscription.unsubscribe(), 45_000);
    });
    expect(fake?.lines.filter((line) => line.includes('still waiting'))).toEqual([
      'bridge: info: still waiting for the answers of the client to the input requests of tools/call (request 2, 10 s)',
      'bridge: info: still waiting for the answers of the client to the input requests of tools/call (request 2, 40 s)',
    ]);
    // The initialize result, then the elicitation for the client; no error at 15 s.
    expect(frames.map(({ at, frame: sent }) => [at, 'method' in sent ? sent.method : sent.id])).toEqual([
      [0, 1],
      [1005, 'elicitation/create'],
    ]);
  });

  it('without BridgeDeps.checks an input_required result fails its request with internal, and the client gets no input request', () => {
    const ts = scheduler();
    let fake: ReturnType<typeof setup> | undefined;
    ts.run(({ hot, cold, expectObservable }) => {
      fake = setup(ts, { 'tools/call': cold('1s (a|)', { a: askName }) }, LONG, 'none');
      expectObservable(fake.bridge(hot('i 4ms c', { ...client, i: elicitingClient })), '^ 20s !').toBe(
        'I 1004ms C',
        {
          ...out,
          // The detail of an internal failure stays in the log (the message points there).
          C: wireErrorFrame(2, 'internal'),
        },
      );
    });
    expect(fake?.lines.filter((line) => line.startsWith('bridge: err:'))).toEqual([
      'bridge: err: request 2 (tools/call): the bridge has no input checks (BridgeDeps.checks), thus it cannot send input requests to the client',
    ]);
  });
});
