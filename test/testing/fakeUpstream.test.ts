/**
 * createFakeUpstream (mcp-bridge-sdk/testing): what the scripted in-memory 2026-07-28 server
 * answers, what it records, and the handles that push frames by hand.
 */
import { NEVER, lastValueFrom, toArray } from 'rxjs';
import type { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';
import type { JsonObject } from '../../src/protocol/jsonrpc.js';
import { createFakeUpstream, upstreamError, upstreamFailure } from '../../src/testing/fakeUpstream.js';
import { inputRequired, note } from '../../src/testing/frames.js';

/** The events of an exchange that ends at once. */
const eventsOf = (exchange: Observable<ExchangeEvent>): Promise<ExchangeEvent[]> =>
  lastValueFrom(exchange.pipe(toArray()));

describe('createFakeUpstream', () => {
  it('answers server/discover with the serverInfo and the capabilities of what it has', async () => {
    const fake = createFakeUpstream({ tools: { echo: () => ({ content: [] }) }, prompts: [] });
    expect(await eventsOf(fake.connection.request('server/discover', {}))).toEqual([
      {
        type: 'response',
        frame: {
          jsonrpc: '2.0',
          id: 1,
          result: {
            resultType: 'complete',
            capabilities: { tools: {}, prompts: {} },
            _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fake', version: '1.0.0' } },
          },
        },
      },
    ]);
  });

  it('lists its tools, answers -32602 to an unknown tool and -32601 to an unknown method', async () => {
    const fake = createFakeUpstream({ tools: { echo: () => ({ content: [] }) } });
    const request = (method: string, params: JsonObject) => fake.connection.request(method, params);
    expect(await eventsOf(request('tools/list', {}))).toEqual([
      {
        type: 'response',
        frame: {
          jsonrpc: '2.0',
          id: 1,
          result: { resultType: 'complete', tools: [{ name: 'echo', inputSchema: { type: 'object' } }] },
        },
      },
    ]);
    expect(await eventsOf(request('tools/call', { name: 'rm' }))).toEqual([
      {
        type: 'response',
        frame: { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Unknown tool rm' } },
      },
    ]);
    expect(await eventsOf(request('tasks/list', {}))).toEqual([
      {
        type: 'response',
        frame: { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
      },
    ]);
  });

  it('a tool asks for input in round 1 and completes in round 2 with the answers it got', async () => {
    const fake = createFakeUpstream({
      tools: {
        greet: (params) =>
          params['inputResponses'] === undefined
            ? inputRequired({ name: { method: 'elicitation/create', params: {} } }, 's1')
            : { content: [{ type: 'text', text: JSON.stringify(params['inputResponses']) }] },
      },
    });
    const first = await eventsOf(fake.connection.request('tools/call', { name: 'greet' }));
    expect(first[0]?.frame).toMatchObject({ result: { resultType: 'input_required', requestState: 's1' } });
    const second = await eventsOf(
      fake.connection.request('tools/call', {
        name: 'greet',
        inputResponses: { name: { action: 'decline' } },
      }),
    );
    expect(second[0]?.frame).toMatchObject({
      result: { resultType: 'complete', content: [{ type: 'text', text: '{"name":{"action":"decline"}}' }] },
    });
  });

  it('answers a JSON-RPC error with its data, and fails the exchange with a BridgeError', async () => {
    const fake = createFakeUpstream({
      tools: {
        refused: () => upstreamError(-32042, 'URL elicitation required', { url: 'https://example.com' }),
        gone: () => upstreamFailure('transport_failed', 'reset'),
      },
    });
    expect(await eventsOf(fake.connection.request('tools/call', { name: 'refused' }))).toEqual([
      {
        type: 'response',
        frame: {
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32042, message: 'URL elicitation required', data: { url: 'https://example.com' } },
        },
      },
    ]);
    const failure = await eventsOf(fake.connection.request('tools/call', { name: 'gone' })).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(BridgeError);
    expect((failure as BridgeError).code).toBe('transport_failed');
  });

  it('acknowledges a listen stream with its subscription id, sends the scripted and the pushed events tagged', () => {
    const fake = createFakeUpstream({
      listen: { events: [note('notifications/resources/updated', { uri: 'file:///a' })] },
    });
    const seen: ExchangeEvent[] = [];
    const subscription = fake.connection
      .request('subscriptions/listen', { notifications: { toolsListChanged: true } })
      .subscribe((event) => seen.push(event));
    fake.emitListen('notifications/tools/list_changed');
    const tag = { 'io.modelcontextprotocol/subscriptionId': 1 };
    expect(seen.map((event) => event.frame)).toEqual([
      note('notifications/subscriptions/acknowledged', {
        notifications: { toolsListChanged: true },
        _meta: tag,
      }),
      note('notifications/resources/updated', { uri: 'file:///a', _meta: tag }),
      note('notifications/tools/list_changed', { _meta: tag }),
    ]);
    subscription.unsubscribe();
    fake.emitListen('notifications/tools/list_changed');
    expect(seen).toHaveLength(3);
  });

  it('records each request with its params, and the cancel reason of one unsubscribed before its end', () => {
    const fake = createFakeUpstream({ methods: { 'prompts/get': () => NEVER } });
    const subscription = fake.connection
      .request(
        'prompts/get',
        { name: 'p', _meta: { traceparent: 't' } },
        { cancelReason: () => 'the request timed out' },
      )
      .subscribe();
    subscription.unsubscribe();
    expect(
      fake.requests.map(({ id, method, params, state, cancelReason }) => ({
        id,
        method,
        params,
        state,
        cancelReason,
      })),
    ).toEqual([
      {
        id: 1,
        method: 'prompts/get',
        params: { name: 'p', _meta: { traceparent: 't' } },
        state: 'cancelled',
        cancelReason: 'the request timed out',
      },
    ]);
  });

  it('an open exchange takes frames and its reply by hand, then completes', () => {
    const fake = createFakeUpstream({ methods: { 'tools/call': () => NEVER } });
    const seen: ExchangeEvent[] = [];
    let completed = false;
    fake.connection
      .request('tools/call', { name: 'slow' })
      .subscribe({ next: (event) => seen.push(event), complete: () => (completed = true) });
    const [call] = fake.requestsOf('tools/call');
    call?.notify(note('notifications/progress', { progressToken: 1, progress: 1 }));
    call?.reply({ content: [] });
    expect(seen.map((event) => event.type)).toEqual(['notification', 'response']);
    expect(completed).toBe(true);
    expect(call?.state).toBe('done');
  });

  it('hands a log message of an exchange to its logs, as a real upstream, and other notifications to its events', () => {
    const fake = createFakeUpstream({ methods: { 'tools/call': () => NEVER } });
    const seen: string[] = [];
    const logs: unknown[] = [];
    fake.connection
      .request('tools/call', { name: 'slow' }, { logs: (frame) => logs.push(frame.params) })
      .subscribe((event) => seen.push(event.type));
    const [call] = fake.requestsOf('tools/call');
    call?.notify(note('notifications/message', { level: 'info', data: 'x' }));
    call?.notify(note('notifications/progress', { progressToken: 1, progress: 1 }));
    expect(logs).toEqual([{ level: 'info', data: 'x' }]);
    expect(seen).toEqual(['notification']);
  });

  it('is cold: a request is made when its exchange is subscribed, and each subscription is one more', () => {
    const fake = createFakeUpstream({ tools: { echo: () => ({ content: [] }) } });
    const exchange = fake.connection.request('tools/list', {});
    expect(fake.requests).toHaveLength(0);
    exchange.subscribe();
    exchange.subscribe();
    expect(fake.requests.map((request) => [request.id, request.method, request.state])).toEqual([
      [1, 'tools/list', 'done'],
      [2, 'tools/list', 'done'],
    ]);
  });

  it('emits notifications$ and exit$ by hand and records close()', () => {
    const fake = createFakeUpstream({ remote: true });
    const seen: unknown[] = [];
    fake.connection.notifications$.subscribe((frame) => seen.push(frame.method));
    fake.connection.exit$.subscribe((exit) => seen.push(exit));
    fake.notify(note('notifications/message', { level: 'info', data: 'x' }));
    fake.exit(3);
    fake.connection.close();
    expect(seen).toEqual(['notifications/message', { code: 3, signal: null }]);
    expect([fake.connection.remote, fake.closed]).toEqual([true, true]);
  });
});
