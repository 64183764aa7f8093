/**
 * The tool definitions of `tools/call` over HTTP (src/edges/http/toolList.ts,
 * docs/http-upstream.md#http-x-mcp-header and docs/results.md#results-upstream-errors trap 31), against the cheap HTTP upstream.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/waitFor.js';
import { createHttpUpstream } from '../../../src/edges/http/httpUpstream.js';
import type { HttpUpstreamConfig, HttpUpstreamConnection } from '../../../src/edges/http/httpUpstream.js';
import type { JsonObject } from '../../../src/protocol/jsonrpc.js';
import { startCheapHttpUpstream } from '../../fixtures/cheapHttpUpstream.js';
import type {
  CheapHttpUpstream,
  CheapHttpUpstreamOptions,
  InterceptReply,
} from '../../fixtures/cheapHttpUpstream.js';
import { collect, recordingLogger } from './support.js';
import type { RecordingLogger } from './support.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'edge-test', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const CALL_META = { ...META, 'io.modelcontextprotocol/logLevel': 'info', traceparent: '00-a-b-01' };

let server: CheapHttpUpstream | undefined;
let logger: RecordingLogger;
const connections: HttpUpstreamConnection[] = [];

beforeEach(() => {
  logger = recordingLogger();
});
afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  await server?.close();
  server = undefined;
});

async function start(options: CheapHttpUpstreamOptions = {}, config: Partial<HttpUpstreamConfig> = {}) {
  server = await startCheapHttpUpstream(options);
  const connection = createHttpUpstream({ url: server.url, env: {}, ...config }, logger);
  connections.push(connection);
  return { upstream: server, connection };
}

const call = (connection: HttpUpstreamConnection, name: string, args: JsonObject = {}) =>
  collect(connection.request('tools/call', { _meta: CALL_META, name, arguments: args }));

const lastFrame = async (events: ReturnType<typeof call>) =>
  (await events).at(-1)?.frame as unknown as JsonObject;

/** `method` or `tools/call <name>` of each request. */
const trail = (upstream: CheapHttpUpstream): string[] =>
  upstream.received.map((request) =>
    request.method === 'tools/call'
      ? `tools/call ${String(request.headers['mcp-name'])}`
      : String(request.method),
  );

const mismatch = (id: unknown): InterceptReply => ({
  status: 400,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32020, message: 'Header mismatch' } }),
});

describe('tools/call of a tool that no tools/list named', () => {
  it('lists every page first, with only the protocol keys of the call _meta, then sends the call with its headers', async () => {
    const { upstream, connection } = await start({ toolsPageSize: 4 });
    const frame = await lastFrame(call(connection, 'echo_headers', { region: 'eu' }));
    expect(frame).toHaveProperty('result');
    expect(trail(upstream)).toEqual(['tools/list', 'tools/list', 'tools/call echo_headers']);
    const lists = upstream.received.filter((request) => request.method === 'tools/list');
    expect(lists.map((request) => request.body?.['params'])).toEqual([
      { _meta: { ...META, progressToken: 1 } },
      { _meta: { ...META, progressToken: 2 }, cursor: '4' },
    ]);
    expect(upstream.received[2]!.headers['mcp-param-region']).toBe('eu');
    expect(connection.knowsTool('big')).toBe(true);
  });

  it('concurrent calls of unknown tools share one listing', async () => {
    const { upstream, connection } = await start();
    const frames = await Promise.all([
      lastFrame(call(connection, 'echo')),
      lastFrame(call(connection, 'big')),
    ]);
    for (const frame of frames) expect(frame).toHaveProperty('result');
    expect(trail(upstream).filter((step) => step === 'tools/list')).toHaveLength(1);
  });

  it('sends the call when the listing fails, and the call answers for itself', async () => {
    const { upstream, connection } = await start();
    upstream.intercept = (request) => (request.method === 'tools/list' ? { status: 503 } : undefined);
    expect(await lastFrame(call(connection, 'echo', { text: 'anyway' }))).toMatchObject({
      result: { content: [{ text: 'anyway' }] },
    });
    expect(trail(upstream)).toEqual(['tools/list', 'tools/call echo']);
    expect(logger.lines.map((line) => line.text)).toContain(
      'the listing of the tools failed (transport_failed); the call goes without it',
    );
  });

  it('stops at a cursor that comes again', async () => {
    const { upstream, connection } = await start();
    upstream.intercept = (request) =>
      request.method === 'tools/list'
        ? {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: request.body?.['id'] ?? null,
              result: { resultType: 'complete', tools: [], nextCursor: 'again' },
            }),
          }
        : undefined;
    expect(await lastFrame(call(connection, 'echo'))).toHaveProperty('result');
    expect(trail(upstream)).toEqual(['tools/list', 'tools/list', 'tools/call echo']);
  });

  it('a cancel during the listing aborts it and sends no call', async () => {
    // A server that never answers: the listing stays open until the cancel.
    const seen: string[] = [];
    let closed!: () => void;
    const aborted = new Promise<void>((resolve) => (closed = resolve));
    const silent = createServer((request, response) => {
      seen.push(String(request.headers['mcp-method']));
      response.once('close', closed);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    const connection = createHttpUpstream({ url, env: {} }, logger);
    connections.push(connection);
    const subscription = connection
      .request('tools/call', { _meta: CALL_META, name: 'echo', arguments: {} })
      .subscribe();
    await waitFor(() => seen.length > 0, { what: 'the listing at the server', everyMs: 5 });
    subscription.unsubscribe();
    await aborted;
    // Sentinel: a ping sent after the cancel reaches the server after any call the cancel let go.
    const sentinel = connection.request('ping', { _meta: CALL_META }).subscribe({ error: () => undefined });
    await waitFor(() => seen.length > 1, { what: 'the sentinel ping at the server', everyMs: 5 });
    sentinel.unsubscribe();
    expect(seen).toEqual(['tools/list', 'ping']);
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });
});

describe('tools/call refused with -32020', () => {
  it('lists the tools again and sends the call once more with a new id', async () => {
    const { upstream, connection } = await start();
    let refused = 0;
    upstream.intercept = (request) =>
      request.method === 'tools/call' && refused++ === 0 ? mismatch(request.body?.['id']) : undefined;
    const frame = await lastFrame(call(connection, 'echo', { text: 'second time' }));
    expect(frame).toMatchObject({ id: 4, result: { content: [{ text: 'second time' }] } });
    expect(trail(upstream)).toEqual(['tools/list', 'tools/call echo', 'tools/list', 'tools/call echo']);
    expect(logger.lines.filter((line) => line.level === 'info').map((line) => line.text)).toEqual([
      'the upstream server refused the headers of a tools/call (-32020); the bridge lists the tools again and sends the call once more',
    ]);
  });

  it('passes a second -32020 as the response: the call is sent at most twice', async () => {
    const { upstream, connection } = await start();
    upstream.intercept = (request) =>
      request.method === 'tools/call' ? mismatch(request.body?.['id']) : undefined;
    expect(await lastFrame(call(connection, 'echo'))).toMatchObject({ error: { code: -32020 } });
    expect(trail(upstream).filter((step) => step === 'tools/call echo')).toHaveLength(2);
  });

  it('does not retry other methods', async () => {
    const { upstream, connection } = await start();
    upstream.intercept = (request) => mismatch(request.body?.['id']);
    const frame = (await collect(connection.request('prompts/get', { _meta: META, name: 'greet' }))).at(
      -1,
    )?.frame;
    expect(frame).toMatchObject({ error: { code: -32020 } });
    expect(trail(upstream)).toEqual(['prompts/get']);
  });
});
