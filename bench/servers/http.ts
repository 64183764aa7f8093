/**
 * HTTP upstreams on loopback in their own process, so that their CPU is not the bench client's:
 *
 *   node dist/bench/servers/http.js cheap     the raw node:http 2026-07-28 echo server
 *   node dist/bench/servers/http.js fixture   the SDK 2.x fixture, createMcpHandler (legacy: 'reject')
 *
 * Prints its URL on the first line of stdout and runs until stdin ends.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { startCheapHttpUpstream } from '../../test/fixtures/cheapHttpUpstream.js';
import type { ReceivedRequest } from '../../test/fixtures/cheapHttpUpstream.js';
import { createFixtureServer } from '../../test/fixtures/fixtureFactory.js';

async function serveFixture(): Promise<string> {
  const handler = createMcpHandler(createFixtureServer(), { legacy: 'reject', onerror: () => undefined });
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
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
      handler.fetch(request).then(
        async (response) => {
          outgoing.writeHead(response.status, Object.fromEntries(response.headers));
          if (response.body !== null) for await (const chunk of response.body) outgoing.write(chunk);
          outgoing.end();
        },
        () => outgoing.writeHead(500).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

async function serveCheap(): Promise<string> {
  const upstream = await startCheapHttpUpstream();
  // The upstream records every request for tests; a benchmark only needs it not to grow.
  setInterval(() => ((upstream.received as ReceivedRequest[]).length = 0), 200).unref();
  return upstream.url;
}

const kind = process.argv[2];
const url = await (kind === 'fixture' ? serveFixture() : serveCheap());
process.stdout.write(`${url}\n`);
process.stdin.resume();
process.stdin.once('end', () => process.exit(0));
