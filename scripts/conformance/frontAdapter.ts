/**
 * A loopback HTTP front for the stdio bridge, so that the `server` mode of the official
 * conformance suite (which only tests Streamable HTTP servers) can reach the bridge's front face
 * (MCP 2025-11-25). Each HTTP session (Mcp-Session-Id) starts one built bridge in front of the
 * project's 2026-07-28 fixture server (`dist/test/fixtures/fixtureServer.js`), and the SDK 1.x
 * transports carry the JSON-RPC messages unchanged both ways: the HTTP framing is the SDK's, every
 * message is the bridge's. What this cannot test: the HTTP-only scenarios (SSE polling, several
 * streams, DNS rebinding) test this adapter, not the bridge; the scenarios that call the suite's
 * own tools, resources and prompts need an upstream that has them (the fixture server does not).
 *
 * Prints `http://127.0.0.1:<port>/mcp` on stdout once listening; stops on SIGINT/SIGTERM.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const BRIDGE = fileURLToPath(new URL('../../bin/mcp-bridge-vscode.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../test/fixtures/fixtureServer.js', import.meta.url));

const sessions = new Map<string, StreamableHTTPServerTransport>();

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** One bridge per session, its stdio wired to the session's HTTP transport. */
async function openSession(): Promise<StreamableHTTPServerTransport> {
  const stdio = new StdioClientTransport({
    command: process.execPath,
    args: [BRIDGE, '--', process.execPath, FIXTURE],
    stderr: 'inherit',
  });
  const http: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => {
      sessions.set(id, http);
    },
  });
  http.onmessage = (message) => {
    void stdio.send(message);
  };
  stdio.onmessage = (message) => {
    // A response goes to the stream of its request (the transport routes by id); anything else
    // the bridge sends goes to the standalone GET stream.
    void http.send(message).catch(() => undefined);
  };
  http.onclose = () => {
    if (http.sessionId !== undefined) sessions.delete(http.sessionId);
    void stdio.close();
  };
  stdio.onclose = () => {
    void http.close();
  };
  await stdio.start();
  await http.start();
  return http;
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') {
    response.writeHead(404).end();
    return;
  }
  const body = request.method === 'POST' ? await readBody(request) : undefined;
  const id = request.headers['mcp-session-id'];
  const known = typeof id === 'string' ? sessions.get(id) : undefined;
  if (known !== undefined) {
    await known.handleRequest(request, response, body);
    return;
  }
  if (id === undefined && request.method === 'POST' && isInitializeRequest(body)) {
    await (await openSession()).handleRequest(request, response, body);
    return;
  }
  response.writeHead(400, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no such session' } }),
  );
}

const server = createServer((request, response) => {
  handle(request, response).catch(() => {
    if (!response.headersSent) response.writeHead(500);
    response.end();
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address === 'object' && address !== null)
    process.stdout.write(`http://127.0.0.1:${address.port}/mcp\n`);
});
const stop = (): void => {
  for (const session of sessions.values()) void session.close();
  server.close();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
