/**
 * Embedded mode over HTTP (docs/embedded.md#embedded-http): one endpoint serves a 2025-11-25
 * client through the bridge's sessions and a 2026-07-28 request through the SDK's own handler,
 * from the same server factory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveDualEraHttp } from '../../src/embed/serveDualEraHttp.js';
import type { HttpServer } from '../../src/node/serveHttp.js';
import { createFixtureServer } from '../fixtures/fixtureFactory.js';
import { modernRequest } from '../helpers/rawPeer.js';

let server: HttpServer;

beforeAll(async () => {
  server = await serveDualEraHttp(createFixtureServer({ hooks: { log: () => undefined } }));
});
afterAll(async () => {
  await server.close();
});

describe('serveDualEraHttp', () => {
  it('serves a 2025-11-25 client in a session through the bridge', async () => {
    const client = new Client({ name: 'legacy', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 5 } });
    expect(result).toEqual({ content: [{ type: 'text', text: '7' }] });
    expect(server.sessions()).toBe(1);
    await transport.terminateSession();
    await client.close();
  });

  it('serves a 2026-07-28 request through the server’s own handler, without a session', async () => {
    const request = modernRequest('tools/call', { name: 'add', arguments: { a: 3, b: 4 } });
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'add',
      },
      body: JSON.stringify(request),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const body = (await response.json()) as { id: number; result: { content: unknown[] } };
    expect(body.id).toBe(request.id);
    expect(body.result.content).toEqual([{ type: 'text', text: '7' }]);
  });
});
