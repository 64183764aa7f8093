import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/waitFor.js';
import { firstValueFrom, take, toArray } from 'rxjs';
import { createHttpUpstream } from '../../../src/edges/http/httpUpstream.js';
import type { HttpUpstreamConfig, HttpUpstreamConnection } from '../../../src/edges/http/httpUpstream.js';
import { BridgeError } from '../../../src/protocol/bridgeError.js';
import type { JsonObject, NotificationFrame } from '../../../src/protocol/jsonrpc.js';
import { startCheapHttpUpstream } from '../../fixtures/cheapHttpUpstream.js';
import type { CheapHttpUpstream } from '../../fixtures/cheapHttpUpstream.js';
import { collect, guardLoopback, recordingLogger } from './support.js';
import type { RecordingLogger } from './support.js';

const MiB = 1024 * 1024;
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };

let server: CheapHttpUpstream;
let logger: RecordingLogger;
const connections: HttpUpstreamConnection[] = [];
let guard: ReturnType<typeof guardLoopback>;

beforeAll(() => {
  guard = guardLoopback();
});
afterAll(() => {
  expect(guard.stop()).toEqual([]);
});
beforeEach(async () => {
  server = await startCheapHttpUpstream();
  logger = recordingLogger();
});
afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  await server.close();
});

function connect(config: Partial<HttpUpstreamConfig> = {}): HttpUpstreamConnection {
  const connection = createHttpUpstream({ url: server.url, env: {}, ...config }, logger);
  connections.push(connection);
  return connection;
}

const call = (connection: HttpUpstreamConnection, name: string, args: JsonObject = {}) =>
  collect(connection.request('tools/call', { _meta: META, name, arguments: args }));

const responseOf = async (events: Promise<Awaited<ReturnType<typeof call>>>) => {
  const list = await events;
  const last = list.at(-1);
  if (last?.type !== 'response') throw new Error('no response');
  return last.frame;
};

/**
 * Lists the tools once, so that the connection knows their definitions and a `tools/call` is one
 * POST (without it, a call lists the tools first: toolList.test.ts). Returns the requests so far.
 */
const known = async (connection: HttpUpstreamConnection): Promise<number> => {
  await collect(connection.request('tools/list', { _meta: META }));
  return server.received.length;
};

const failure = async (promise: Promise<unknown>): Promise<BridgeError> => {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(BridgeError);
  return error as BridgeError;
};

describe('request headers', () => {
  const EXPECTED_NAMES = [
    'accept',
    'connection',
    'content-length',
    'content-type',
    'host',
    'mcp-method',
    'mcp-protocol-version',
    'x-api-key',
  ];
  const cases: Array<[string, JsonObject, string | undefined]> = [
    ['server/discover', {}, undefined],
    ['tools/list', {}, undefined],
    ['tools/call', { name: 'echo', arguments: { text: 'hi' } }, 'echo'],
    ['prompts/list', {}, undefined],
    ['prompts/get', { name: 'greet' }, 'greet'],
    ['resources/list', {}, undefined],
    ['resources/read', { uri: 'mem://a' }, 'mem://a'],
  ];

  it.each(cases)(
    '%s is one POST with exactly the transport headers and the static ones',
    async (method, params, name) => {
      const connection = connect({ headers: [{ name: 'X-Api-Key', value: 'secret-value' }] });
      const before = method === 'tools/call' ? await known(connection) : 0;
      const frame = await responseOf(collect(connection.request(method, { _meta: META, ...params })));
      expect(frame).toHaveProperty('result');
      const sent = server.received.slice(before);
      expect(sent).toHaveLength(1);
      const { httpMethod, headers } = sent[0]!;
      expect(httpMethod).toBe('POST');
      const names = name === undefined ? EXPECTED_NAMES : [...EXPECTED_NAMES, 'mcp-name'].sort();
      expect(Object.keys(headers).sort()).toEqual(names);
      expect(headers).toMatchObject({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        'x-api-key': 'secret-value',
      });
      expect(headers['mcp-name']).toBe(name);
    },
  );

  it('the header-echo tool sees the headers of its own call', async () => {
    const connection = connect({ headers: [{ name: 'Authorization', value: 'Bearer t0ken' }] });
    const frame = await responseOf(call(connection, 'echo_headers'));
    const seen = (frame as unknown as { result: { structuredContent: { headers: Record<string, string> } } })
      .result.structuredContent.headers;
    expect(seen).toMatchObject({
      'mcp-method': 'tools/call',
      'mcp-name': 'echo_headers',
      authorization: 'Bearer t0ken',
    });
    expect(seen).not.toHaveProperty('mcp-session-id');
    expect(seen).not.toHaveProperty('last-event-id');
  });

  it('Mcp-Name of a name or URI outside plain ASCII is Base64-wrapped', async () => {
    const connection = connect();
    await collect(connection.request('resources/read', { _meta: META, uri: 'mem://ä b ' }));
    await collect(connection.request('prompts/get', { _meta: META, name: ' greet' }));
    expect(server.received.map((request) => request.headers['mcp-name'])).toEqual([
      `=?base64?${Buffer.from('mem://ä b ').toString('base64')}?=`,
      `=?base64?${Buffer.from(' greet').toString('base64')}?=`,
    ]);
  });

  it('assigns integer ids from 1 and sets _meta.progressToken to the id without changing the caller params', async () => {
    const connection = connect();
    const params = { _meta: { ...META, keep: 'me' }, name: 'echo', arguments: { text: 'x' } };
    const snapshot = structuredClone(params);
    await collect(connection.request('tools/list', { _meta: META }));
    await collect(connection.request('tools/call', params));
    expect(params).toEqual(snapshot);
    expect(server.received.map((request) => request.body?.['id'])).toEqual([1, 2]);
    expect(server.received.map((request) => (request.body?.['params'] as JsonObject)['_meta'])).toEqual([
      { ...META, progressToken: 1 },
      { ...META, keep: 'me', progressToken: 2 },
    ]);
  });
});

describe('x-mcp-header', () => {
  it('sends Mcp-Param headers for annotated arguments, Base64 for non-ASCII and outer whitespace', async () => {
    const connection = connect();
    expect(connection.knowsTool('echo_headers')).toBe(false);
    await collect(connection.request('tools/list', { _meta: META }));
    expect(connection.knowsTool('echo_headers')).toBe(true);
    const frame = await responseOf(
      call(connection, 'echo_headers', {
        region: 'Hello, 世界',
        count: 42,
        verbose: false,
        options: { tenant: ' padded ' },
      }),
    );
    expect(frame).toHaveProperty('result');
    expect(server.received.at(-1)!.headers).toMatchObject({
      'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=',
      'mcp-param-count': '42',
      'mcp-param-verbose': 'false',
      'mcp-param-tenant': '=?base64?IHBhZGRlZCA=?=',
    });
  });

  it('omits the header of a missing or null argument', async () => {
    const connection = connect();
    await collect(connection.request('tools/list', { _meta: META }));
    const frame = await responseOf(call(connection, 'echo_headers', { region: 'eu', count: null }));
    expect(frame).toHaveProperty('result');
    const names = Object.keys(server.received.at(-1)!.headers).filter((name) =>
      name.startsWith('mcp-param-'),
    );
    expect(names).toEqual(['mcp-param-region']);
  });

  it('a call before any tools/list lists the tools first, then sends the Mcp-Param headers', async () => {
    const connection = connect();
    const frame = await responseOf(call(connection, 'echo_headers', { region: 'eu' }));
    expect(frame).toMatchObject({ id: 2, result: {} });
    expect(server.received.map((request) => request.method)).toEqual(['tools/list', 'tools/call']);
    expect(server.received[1]!.headers['mcp-param-region']).toBe('eu');
    expect(connection.knowsTool('echo_headers')).toBe(true);
  });

  it('hides tools with invalid annotations, reports them, and refuses their calls locally', async () => {
    await server.close();
    const header = (type: string, name = 'H') => ({ type, 'x-mcp-header': name });
    server = await startCheapHttpUpstream({
      extraTools: [
        {
          name: 'bad_token',
          inputSchema: { type: 'object', properties: { a: header('string', 'Bad Name') } },
        },
        { name: 'bad_type', inputSchema: { type: 'object', properties: { a: header('number') } } },
        {
          name: 'bad_items',
          inputSchema: { type: 'object', properties: { a: { type: 'array', items: header('string') } } },
        },
        {
          name: 'bad_duplicate',
          inputSchema: { type: 'object', properties: { a: header('string', 'X'), b: header('string', 'x') } },
        },
        { name: 'fine', inputSchema: { type: 'object', properties: { a: header('string', 'Fine') } } },
      ],
    });
    const connection = connect();
    const frame = await responseOf(collect(connection.request('tools/list', { _meta: META })));
    const names = (
      (frame as unknown as { result: { tools: Array<{ name: string }> } }).result.tools ?? []
    ).map((t) => t.name);
    expect(names).toContain('fine');
    expect(names).not.toEqual(expect.arrayContaining(['bad_token']));
    expect(names.filter((name) => name.startsWith('bad_'))).toEqual([]);
    const invalid = connection.invalidTools();
    expect([...invalid.keys()].sort()).toEqual(['bad_duplicate', 'bad_items', 'bad_token', 'bad_type']);
    expect(invalid.get('bad_type')).toMatch(/type is not string, integer or boolean/);
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.text)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^the tool "bad_items" of the upstream server is hidden: /),
      ]),
    );
    const before = server.received.length;
    const error = await failure(call(connection, 'bad_type', { a: 1 }));
    expect(error).toMatchObject({ code: 'invalid_params' });
    expect(server.received).toHaveLength(before);
  });
});

describe('responses', () => {
  it('reads a JSON response', async () => {
    const connection = connect();
    await known(connection);
    const events = await call(connection, 'echo', { text: 'hello' });
    expect(events).toEqual([
      {
        type: 'response',
        frame: {
          jsonrpc: '2.0',
          id: 2,
          result: { resultType: 'complete', content: [{ type: 'text', text: 'hello' }] },
        },
      },
    ]);
  });

  it('reads an SSE response: progress and the log message as events of the exchange, before the result', async () => {
    const connection = connect();
    await known(connection);
    const messages: NotificationFrame[] = [];
    const subscription = connection.notifications$.subscribe((frame) => messages.push(frame));
    const events = await call(connection, 'echo_sse', { text: 'streamed' });
    subscription.unsubscribe();
    expect(events.map((event) => event.type)).toEqual(['notification', 'notification', 'response']);
    // docs/serve.md#serve-routing: a log message belongs to the request whose stream carried it.
    expect(events.slice(0, 2).map((event) => event.frame)).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 2, progress: 1 } },
        {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', logger: 'cheap', data: 'echo_sse called' },
        },
      ]),
    );
    expect(events[2]!.frame).toMatchObject({ id: 2, result: { content: [{ text: 'streamed' }] } });
    expect(messages).toEqual([]);
  });

  it('brings a 5 MiB result in one response', async () => {
    const connection = connect();
    for (const sse of [false, true]) {
      const frame = await responseOf(call(connection, 'big', { bytes: 5 * MiB, sse }));
      const text = (frame as unknown as { result: { content: Array<{ text: string }> } }).result.content[0]!
        .text;
      expect(text.length).toBe(5 * MiB);
    }
  });

  it('fails a JSON response over maxResponseBytes with invalid_response', async () => {
    const error = await failure(call(connect({ maxResponseBytes: MiB }), 'big', { bytes: 2 * MiB }));
    expect(error).toMatchObject({ code: 'invalid_response', httpStatus: 200 });
    expect(error.detail).toBe(`tools/call: the response is longer than the limit of ${MiB} bytes`);
  });

  it('fails a JSON response over the limit without Content-Length as soon as the limit is passed', async () => {
    server.intercept = () => ({
      status: 200,
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: `{"jsonrpc":"2.0","id":1,"result":{"t":"${'y'.repeat(4096)}"}}`,
    });
    const error = await failure(call(connect({ maxResponseBytes: 1000 }), 'echo'));
    expect(error).toMatchObject({ code: 'invalid_response', httpStatus: 200 });
  });

  it('fails an SSE event over maxResponseBytes with invalid_response', async () => {
    const error = await failure(
      call(connect({ maxResponseBytes: MiB }), 'big', { bytes: 2 * MiB, sse: true }),
    );
    expect(error).toMatchObject({ code: 'invalid_response', httpStatus: 200 });
    expect(error.detail).toBe(
      `tools/call: an event of the response stream is longer than the limit of ${MiB} bytes`,
    );
  });

  it('limits each SSE event, not the whole stream', async () => {
    const frame = await responseOf(
      call(connect({ maxResponseBytes: 400 }), 'slow', { steps: 20, intervalMs: 1 }),
    );
    expect(frame).toHaveProperty('result');
  });

  it('passes a JSON-RPC error of a 4xx body as the response', async () => {
    const frame = await responseOf(collect(connect().request('no/such-method', { _meta: META })));
    expect(frame).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } });
  });

  it('gives an id-less JSON-RPC error of a 4xx body the id of the request', async () => {
    const connection = connect();
    await known(connection);
    server.intercept = () => ({
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32602, message: 'bad _meta' } }),
    });
    const frame = await responseOf(call(connection, 'echo'));
    expect(frame).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad _meta' } });
  });

  it.each([
    [404, undefined, 'invalid_response'],
    [400, 'not json', 'invalid_response'],
    [405, undefined, 'invalid_response'],
    [302, undefined, 'invalid_response'],
    [401, undefined, 'transport_failed'],
    [403, '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"origin"}}', 'transport_failed'],
    [408, undefined, 'transport_failed'],
    [429, undefined, 'transport_failed'],
    [500, '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}', 'transport_failed'],
    [503, undefined, 'transport_failed'],
  ])('HTTP status %i with body %s fails with %s and the status', async (status, body, cause) => {
    server.intercept = () => ({
      status,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
    const error = await failure(call(connect(), 'echo'));
    expect(error).toMatchObject({ code: cause, httpStatus: status });
    expect(error.detail).toMatch(/^tools\/call: /);
  });

  it('fails a 2xx response that is neither JSON nor SSE, 202 included', async () => {
    for (const reply of [
      { status: 202 },
      { status: 200, headers: { 'content-type': 'text/html' }, body: '<html></html>' },
    ]) {
      server.intercept = () => reply;
      const error = await failure(call(connect(), 'echo'));
      expect(error).toMatchObject({ code: 'invalid_response', httpStatus: reply.status });
    }
  });

  it('fails a JSON body that is not the response of this request', async () => {
    for (const body of [
      '{"jsonrpc":"2.0","id":99,"result":{}}',
      '{"jsonrpc":"2.0","method":"x"}',
      '[1]',
      'nope',
    ]) {
      server.intercept = () => ({ status: 200, headers: { 'content-type': 'application/json' }, body });
      const error = await failure(call(connect(), 'echo'));
      expect(error).toMatchObject({ code: 'invalid_response', httpStatus: 200 });
    }
  });

  it('fails an SSE stream that ends before the response with closed, for that request only', async () => {
    const connection = connect();
    await known(connection);
    server.intercept = (request) =>
      request.body?.['id'] === 2
        ? {
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            body: 'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}\n\n',
          }
        : undefined;
    const events: unknown[] = [];
    const error = await failure(
      new Promise((resolve, reject) => {
        connection.request('tools/call', { _meta: META, name: 'echo', arguments: {} }).subscribe({
          next: (event) => events.push(event),
          error: reject,
          complete: () => resolve(undefined),
        });
      }),
    );
    expect(events).toHaveLength(1);
    expect(error).toMatchObject({ code: 'closed', httpStatus: 200 });
    expect(error.detail).toBe('tools/call: the response stream ended before the response');
    expect(await responseOf(call(connection, 'echo', { text: 'next' }))).toHaveProperty('result');
    expect(server.received).toHaveLength(3);
  });

  it('fails a stream that breaks before the response with closed and never sends the request again', async () => {
    const connection = connect();
    const before = await known(connection);
    const error = await failure(call(connection, 'break_stream'));
    expect(error).toMatchObject({ code: 'closed', httpStatus: 200 });
    expect(error.detail).toBe('tools/call: the response stream broke (UND_ERR_SOCKET)');
    expect(server.received).toHaveLength(before + 1);
  });

  it('fails an SSE event that is not JSON-RPC, drops server requests and ignores other event types', async () => {
    const connection = connect();
    await known(connection);
    server.intercept = () => ({
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      body:
        ': comment\n\nevent: ping\ndata: not json\n\n' +
        'data: {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}\n\n' +
        'retry: 5\nid: 3\ndata: {"jsonrpc":"2.0",\ndata: "id":2,"result":{"ok":true}}\n\n',
    });
    const events = await call(connection, 'echo');
    expect(events).toEqual([{ type: 'response', frame: { jsonrpc: '2.0', id: 2, result: { ok: true } } }]);
    expect(logger.lines.map((line) => line.text)).toContain(
      'dropped a request of the upstream server on a response stream (sampling/createMessage)',
    );
    server.intercept = () => ({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: 'data: {nope\n\n',
    });
    expect(await failure(call(connect(), 'echo'))).toMatchObject({ code: 'invalid_response' });
  });

  it('fails with transport_failed when nothing listens on the port', async () => {
    await server.close();
    const error = await failure(call(connect(), 'echo'));
    expect(error).toMatchObject({ code: 'transport_failed', httpStatus: undefined });
    expect(error.detail).toBe('tools/call: the connection was refused (ECONNREFUSED)');
  });
});

describe('cancellation and lifetime', () => {
  it('unsubscribing aborts the POST: the server sees the connection close', async () => {
    const connection = connect();
    const aborted = server.whenAborted();
    const first = await firstValueFrom(
      connection.request('tools/call', {
        _meta: META,
        name: 'slow',
        arguments: { steps: 100, intervalMs: 20 },
      }),
    );
    expect(first).toMatchObject({ type: 'notification', frame: { method: 'notifications/progress' } });
    await aborted;
    expect(server.aborted).toBe(1);
  });

  it('keeps a listen stream open and passes its events until unsubscribed', async () => {
    const connection = connect();
    const seen: unknown[] = [];
    const aborted = server.whenAborted();
    const events = firstValueFrom(
      connection
        .request('subscriptions/listen', { _meta: META, notifications: { toolsListChanged: true } })
        .pipe(take(2), toArray()),
    );
    await waitFor(() => server.openListens === 1, { what: 'the open listen stream' });
    server.notifyListeners('tools');
    seen.push(...(await events));
    await aborted;
    expect(seen).toEqual([
      {
        type: 'notification',
        frame: {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: {
            _meta: { 'io.modelcontextprotocol/subscriptionId': 1 },
            notifications: { toolsListChanged: true },
          },
        },
      },
      {
        type: 'notification',
        frame: {
          jsonrpc: '2.0',
          method: 'notifications/tools/list_changed',
          params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } },
        },
      },
    ]);
    expect(server.received[0]!.headers).not.toHaveProperty('mcp-name');
  });

  it('close() fails the requests in flight with closed, refuses new ones and completes notifications$', async () => {
    const connection = connect();
    let completed = false;
    connection.notifications$.subscribe({ complete: () => (completed = true) });
    const pending = collect(
      connection.request('tools/call', {
        _meta: META,
        name: 'slow',
        arguments: { steps: 100, intervalMs: 20 },
      }),
    );
    await waitFor(() => server.received.length > 0, { what: 'the call at the server', everyMs: 5 });
    connection.close();
    expect(await failure(pending)).toMatchObject({ code: 'closed' });
    expect(await failure(call(connection, 'echo'))).toMatchObject({ code: 'closed' });
    expect(completed).toBe(true);
    expect(connection.remote).toBe(true);
  });

  it('exit$ never emits', async () => {
    const connection = connect();
    let emitted = false;
    const subscription = connection.exit$.subscribe(() => (emitted = true));
    await call(connection, 'echo');
    connection.close();
    subscription.unsubscribe();
    expect(emitted).toBe(false);
  });
});

describe('logging', () => {
  it('writes one debug line per exchange, without the URL, header values or contents', async () => {
    const connection = connect({ headers: [{ name: 'X-Api-Key', value: 'secret-value' }] });
    await known(connection);
    await collect(
      connection.request(
        'tools/call',
        { _meta: META, name: 'echo', arguments: { text: 'private words' } },
        { trace: { round: 2, clientId: 'c-7' } },
      ),
    );
    await collect(connection.request('tools/list', { _meta: META }));
    server.intercept = () => ({ status: 404 });
    await failure(call(connection, 'echo'));
    server.intercept = undefined;
    await firstValueFrom(
      connection.request('tools/call', {
        _meta: META,
        name: 'slow',
        arguments: { steps: 100, intervalMs: 20 },
      }),
    );
    const debug = logger.lines.filter((line) => line.level === 'debug').map((line) => line.text);
    expect(debug).toEqual([
      expect.stringMatching(
        /^upstream request 1 \(tools\/list, round 1 of no client request\): response after \d+ ms \(HTTP status 200\)$/,
      ),
      expect.stringMatching(
        /^upstream request 2 \(tools\/call, round 2 of client request "c-7"\): response after \d+ ms \(HTTP status 200\)$/,
      ),
      expect.stringMatching(
        /^upstream request 3 \(tools\/list, round 1 of no client request\): response after \d+ ms \(HTTP status 200\)$/,
      ),
      expect.stringMatching(
        /^upstream request 4 \(tools\/call, round 1 of no client request\): failed \(invalid_response\) after \d+ ms \(HTTP status 404\)$/,
      ),
      expect.stringMatching(
        /^upstream request 5 \(tools\/call, round 1 of no client request\): cancelled after \d+ ms/,
      ),
    ]);
    for (const { text } of logger.lines) {
      expect(text).not.toContain(String(server.port));
      expect(text).not.toContain('127.0.0.1');
      expect(text).not.toContain('secret-value');
      expect(text).not.toContain('private words');
    }
  });
});
