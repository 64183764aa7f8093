/**
 * The HTTP edge against the server of the official SDK (`createMcpHandler` with `legacy: 'reject'`,
 * a strict 2026-07-28 endpoint): its header checks accept what the edge sends.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpUpstream } from '../../../src/edges/http/httpUpstream.js';
import type { HttpUpstreamConnection } from '../../../src/edges/http/httpUpstream.js';
import type { JsonObject } from '../../../src/protocol/jsonrpc.js';
import { collect, recordingLogger } from './support.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'edge-test', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Held in a variable: the SDK's JSON Schema type has no `x-mcp-header` member. */
const ANNOTATED_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    nested: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } },
  },
};

function makeMcpServer(): McpServer {
  const server = new McpServer({ name: 'sdk-interop', version: '1.0.0' });
  server.registerTool(
    'annotated',
    {
      inputSchema: fromJsonSchema(ANNOTATED_SCHEMA as Parameters<typeof fromJsonSchema>[0]),
    },
    (args: unknown) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
  );
  server.registerResource('file', 'mem://a/%C3%A9', {}, (uri: URL) => ({
    contents: [{ uri: uri.href, text: 'content' }],
  }));
  return server;
}

let httpServer: Server;
let url: string;
let connection: HttpUpstreamConnection | undefined;
let closeHandler: () => Promise<void>;
let notifyToolsChanged: () => void;

beforeEach(async () => {
  const handler = createMcpHandler(() => makeMcpServer(), { legacy: 'reject' });
  closeHandler = handler.close;
  notifyToolsChanged = () => handler.notify.toolsChanged();
  httpServer = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const controller = new AbortController();
      outgoing.once('close', () => controller.abort());
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      const request = new Request(`http://127.0.0.1${incoming.url ?? '/'}`, {
        method: incoming.method ?? 'GET',
        headers,
        signal: controller.signal,
        ...(incoming.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
      void handler.fetch(request).then(async (response) => {
        outgoing.writeHead(response.status, Object.fromEntries(response.headers));
        if (response.body !== null) for await (const chunk of response.body) outgoing.write(chunk);
        outgoing.end();
      });
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
});

afterEach(async () => {
  connection?.close();
  connection = undefined;
  await closeHandler();
  httpServer.closeAllConnections();
  await new Promise<void>((resolve) => httpServer.close(() => resolve()));
});

const last = async (promise: Promise<Array<{ frame: unknown }>>) =>
  (await promise).at(-1)?.frame as JsonObject;

describe('HTTP edge against the SDK server', () => {
  it('discovers, lists and calls a tool with Base64 Mcp-Param headers that the server accepts', async () => {
    connection = createHttpUpstream({ url, env: {} }, recordingLogger());
    expect(await last(collect(connection.request('server/discover', { _meta: META })))).toHaveProperty(
      'result',
    );
    expect(await last(collect(connection.request('tools/list', { _meta: META })))).toHaveProperty('result');
    expect(connection.invalidTools().size).toBe(0);
    const args = { region: 'Hello, 世界', count: 7, nested: { tenant: ' padded ' } };
    const frame = await last(
      collect(connection.request('tools/call', { _meta: META, name: 'annotated', arguments: args })),
    );
    expect(frame).toMatchObject({ result: { content: [{ type: 'text', text: JSON.stringify(args) }] } });
  });

  it('reads a resource whose URI needs a Base64 Mcp-Name', async () => {
    connection = createHttpUpstream({ url, env: {} }, recordingLogger());
    const frame = await last(
      collect(connection.request('resources/read', { _meta: META, uri: 'mem://a/é' })),
    );
    expect(frame).toMatchObject({ result: { contents: [{ text: 'content' }] } });
  });

  it('a call before any tools/list lists the tools first, and the server accepts its Mcp-Param headers', async () => {
    connection = createHttpUpstream({ url, env: {} }, recordingLogger());
    const frame = await last(
      collect(
        connection.request('tools/call', { _meta: META, name: 'annotated', arguments: { region: 'eu' } }),
      ),
    );
    expect(frame).toMatchObject({ result: { content: [{ text: JSON.stringify({ region: 'eu' }) }] } });
    expect(connection.knowsTool('annotated')).toBe(true);
  });

  it('keeps a listen stream of the SDK server open and passes the acknowledgement and a list change', async () => {
    connection = createHttpUpstream({ url, env: {} }, recordingLogger());
    const events = await new Promise<unknown[]>((resolve, reject) => {
      const seen: unknown[] = [];
      const subscription = connection!
        .request('subscriptions/listen', { _meta: META, notifications: { toolsListChanged: true } })
        .subscribe({
          next: (event) => {
            seen.push(event);
            if (seen.length === 1) notifyToolsChanged();
            if (seen.length === 2) {
              subscription.unsubscribe();
              resolve(seen);
            }
          },
          error: reject,
        });
    });
    expect(events).toMatchObject([
      { type: 'notification', frame: { method: 'notifications/subscriptions/acknowledged' } },
      {
        type: 'notification',
        frame: {
          method: 'notifications/tools/list_changed',
          params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } },
        },
      },
    ]);
  });
});
