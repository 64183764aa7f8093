/**
 * Back-pressure on HTTP bodies (src/edges/bodyGate.ts, src/node/upstreamConnector.ts): while
 * the client does not read the bridge's stdout, the bridge stops reading the HTTP response bodies,
 * so an upstream streaming a large answer cannot write it to the end (its writes wait for a drain).
 * Once the client reads, every byte arrives. docs/README.md#docs-pages: every queue is bounded.
 * Needs the build (the bridge is dist/bin/mcp-bridge-vscode.js).
 */
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { BRIDGE, initializeRequest, note } from '../helpers/bridgeProcess.js';
import { bridgeEnv } from './httpSupport.js';

const MIB = 1024 * 1024;
/** The upstream answers `flood` with this many progress notifications of 64 KiB each (64 MiB). */
const EVENTS = 1024;
const MESSAGE_BYTES = 64 * 1024;
const message = (i: number): string => `${i}:`.padEnd(MESSAGE_BYTES, 'x');

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** The writer's view of the `flood` stream: bytes res.write accepted, whether it waits for a drain. */
interface FloodState {
  written: number;
  waitingForDrain: boolean;
  finished: boolean;
}

/** A minimal 2026-07-28 upstream on 127.0.0.1:0 with one tool, `flood` (SSE, honours res.write's drain). */
async function startFloodUpstream(state: FloodState): Promise<{ url: string; close: () => void }> {
  const json = (res: ServerResponse, id: unknown, result: object) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  };
  const flood = (res: ServerResponse, id: unknown, token: unknown) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let i = 0;
    const pump = () => {
      state.waitingForDrain = false;
      while (i < EVENTS) {
        i++;
        const event = {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: EVENTS, message: message(i) },
        };
        const chunk = `data: ${JSON.stringify(event)}\n\n`;
        const more = res.write(chunk);
        state.written += Buffer.byteLength(chunk);
        if (!more) {
          state.waitingForDrain = true;
          res.once('drain', pump);
          return;
        }
      }
      res.end(
        `data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'flood done' }] } })}\n\n`,
      );
      state.finished = true;
    };
    pump();
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
      let body: {
        id?: unknown;
        method?: unknown;
        params?: { name?: unknown; _meta?: { progressToken?: unknown } };
      };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        return void res.writeHead(400).end();
      }
      if (body.id === undefined) return void res.writeHead(202).end();
      switch (body.method) {
        case 'server/discover':
          return json(res, body.id, {
            resultType: 'complete',
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} },
            _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'flood-upstream', version: '1.0.0' } },
            ttlMs: 0,
            cacheScope: 'public',
          });
        case 'tools/list':
          return json(res, body.id, {
            resultType: 'complete',
            tools: [{ name: 'flood', inputSchema: { type: 'object' } }],
            ttlMs: 0,
            cacheScope: 'public',
          });
        case 'tools/call':
          if (body.params?.name === 'flood') return flood(res, body.id, body.params._meta?.progressToken);
          break;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('a client that does not read the stdout of the bridge of an HTTP upstream', () => {
  it(
    'stops reading the response body: the upstream cannot write its 64 MiB answer until the client reads',
    { timeout: 120_000 },
    async () => {
      const state: FloodState = { written: 0, waitingForDrain: false, finished: false };
      const upstream = await startFloodUpstream(state);
      cleanups.push(upstream.close);
      const child = spawn(process.execPath, [BRIDGE, upstream.url], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: bridgeEnv(),
      });
      cleanups.push(() => {
        if (child.exitCode === null) child.kill('SIGKILL');
      });
      child.stdin.on('error', () => undefined);
      child.stderr.resume();
      const send = (frame: object) => child.stdin.write(`${JSON.stringify(frame)}\n`);
      // The client reads stdout only up to the answer of initialize, then stops (pause), until the
      // "reads again" below.
      let initialized = false;
      const progress: number[] = [];
      let badMessages = 0;
      let result: unknown;
      const onLine = (line: string) => {
        const frame = JSON.parse(line) as {
          id?: unknown;
          method?: string;
          params?: { progressToken?: unknown; progress?: number; message?: string };
          result?: unknown;
        };
        if (frame.id === 1) {
          initialized = true;
          child.stdout.pause();
        }
        if (frame.method === 'notifications/progress' && frame.params?.progressToken === 'p') {
          const n = frame.params.progress ?? -1;
          progress.push(n);
          if (frame.params.message !== message(n)) badMessages++;
        }
        if (frame.id === 2) result = frame.result ?? frame;
      };
      let rest = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        const parts = (rest + chunk).split('\n');
        rest = parts.pop() ?? '';
        for (const line of parts) if (line !== '') onLine(line);
      });
      send(initializeRequest(1));
      await waitFor(() => initialized, { timeoutMs: 30_000, what: 'the answer of initialize' });
      send(note('notifications/initialized'));
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'flood', arguments: {}, _meta: { progressToken: 'p' } },
      });

      // The stream started and the upstream's socket is full.
      await waitFor(() => state.waitingForDrain || state.finished, {
        timeoutMs: 30_000,
        what: 'the upstream writes the flood',
      });
      // real timer: a stall is a count that does not move for 2 s (the bridge stopped reading), or the
      // upstream finished; no event marks a read that does not happen.
      let last = -1;
      let still = 0;
      while (!state.finished && still < 100) {
        still = state.written === last ? still + 1 : 0;
        last = state.written;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const stalledAt = state.written;
      console.log(`http back-pressure: the upstream wrote ${stalledAt} of ~${EVENTS * MESSAGE_BYTES} bytes`);
      expect(state.finished).toBe(false);
      expect(state.waitingForDrain).toBe(true);
      expect(stalledAt).toBeLessThan(32 * MIB);

      // The client reads again: every progress notification and then the result arrive, complete.
      child.stdout.resume();
      await waitFor(() => result !== undefined, { timeoutMs: 90_000, what: 'the result of flood' });
      expect(state.finished).toBe(true);
      expect(progress.length).toBe(1024);
      expect(progress.every((n, index) => n === index + 1)).toBe(true);
      expect(badMessages).toBe(0);
      expect(result).toEqual({ content: [{ type: 'text', text: 'flood done' }] });
      child.stdin.end();
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
    },
  );
});
