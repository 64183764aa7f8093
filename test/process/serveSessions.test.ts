/**
 * `mcp-bridge serve` with SDK 1.x StreamableHTTPClientTransport clients (docs/serve.md#serve-sessions):
 * one upstream for every session, each session with its own lifecycle, input rounds, log level
 * and subscriptions; DELETE and a dropped stream cancel that session's upstream requests only.
 * Needs the build (`npm run build`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { killAllPeers } from '../helpers/rawPeer.js';
import { processTable } from '../helpers/processTable.js';
import { waitFor } from '../helpers/waitFor.js';
import { POST_HEADERS, WAIT_MS, connectClient, rawSession, startServe } from './serveSupport.js';
import type { ServeProcess } from './serveSupport.js';

let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe();
});
afterAll(killAllPeers);

/** The `data` of each event of an event stream, parsed, one per next(). */
function readEvents(response: Response): { next: () => Promise<Record<string, unknown>> } {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    async next() {
      for (;;) {
        const end = text.indexOf('\n\n');
        if (end >= 0) {
          const event = text.slice(0, end);
          text = text.slice(end + 2);
          const data = event.split('\n').find((line) => line.startsWith('data: '));
          if (data !== undefined) return JSON.parse(data.slice(6)) as Record<string, unknown>;
          continue;
        }
        const chunk = await reader.read();
        if (chunk.done) throw new Error('the stream ended');
        text += decoder.decode(chunk.value, { stream: true });
      }
    },
  };
}

const textOf = (result: unknown): string => (result as { content: { text: string }[] }).content[0]!.text;
const fixtureLines = (): string[] =>
  serve.peer.stderr.filter((line) => line.startsWith('bridge-fixture-server: '));

describe('mcp-bridge serve', () => {
  it('serves initialize, lists and calls to SDK clients, each session with an id of its own', async () => {
    const a = await connectClient(serve.url);
    const b = await connectClient(serve.url);
    expect(a.transport.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(b.transport.sessionId).not.toBe(a.transport.sessionId);
    expect(a.client.getServerVersion()?.name).toBe('bridge-fixture-server');
    const tools = await a.client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('add');
    expect(textOf(await b.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    // One upstream for both sessions: the fixture started once.
    expect(fixtureLines().filter((line) => line.includes('serving 2026-07-28'))).toHaveLength(1);
    await a.client.close();
    await b.client.close();
  });

  it('sends each input request to the session whose call caused it, and takes its answer by POST', async () => {
    const answering = (name: string) => (client: Client) =>
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name } }));
    const a = await connectClient(serve.url, { elicitation: { form: {} } }, answering('Ada'));
    const b = await connectClient(serve.url, { elicitation: { form: {} } }, answering('Grace'));
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: 'ask_form', arguments: {} }),
      b.client.callTool({ name: 'ask_form', arguments: {} }),
    ]);
    expect(textOf(ra)).toBe('form: accept {"name":"Ada"}');
    expect(textOf(rb)).toBe('form: accept {"name":"Grace"}');
    await a.client.close();
    await b.client.close();
  });

  it('sends an input request on the event stream of the POST that caused it, and its result after the answer', async () => {
    const session = await rawSession(serve.port, { elicitation: { form: {} } });
    const headers = { ...POST_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const response = await fetch(serve.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'ask_form', arguments: {} },
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = readEvents(response);
    const asked = await events.next();
    expect(asked).toMatchObject({ jsonrpc: '2.0', method: 'elicitation/create', params: { mode: 'form' } });
    const answer = await fetch(serve.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: asked['id'],
        result: { action: 'accept', content: { name: 'Lin' } },
      }),
    });
    expect(answer.status).toBe(202);
    expect(await events.next()).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: { content: [{ type: 'text', text: 'form: accept {"name":"Lin"}' }] },
    });
  });

  it('gives each session the log messages of its own requests at its own level, and the updates of its own subscriptions', async () => {
    const levels: Record<string, string[]> = { a: [], b: [] };
    const updated: Record<string, string[]> = { a: [], b: [] };
    const watch = (key: 'a' | 'b') => (client: Client) => {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        levels[key]!.push(n.params.level);
      });
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updated[key]!.push(n.params.uri);
      });
    };
    const a = await connectClient(serve.url, {}, watch('a'));
    const b = await connectClient(serve.url, {}, watch('b'));
    await a.client.setLoggingLevel('error');
    await b.client.setLoggingLevel('info');
    await b.client.callTool({ name: 'log', arguments: {} });
    await waitFor(() => levels['b']!.length === 3, { what: 'the log messages of b' });
    // docs/serve.md#serve-routing: b's messages never reach a. a's own call at the level debug is
    // the sentinel: its messages come after any of b's on a's stream.
    await a.client.setLoggingLevel('debug');
    await a.client.callTool({ name: 'log', arguments: {} });
    await waitFor(() => levels['a']!.length >= 4, { what: 'the log messages of a' });
    expect(levels['b']).toEqual(['info', 'warning', 'error']);
    expect(levels['a']).toEqual(['debug', 'info', 'warning', 'error']);

    await a.client.subscribeResource({ uri: 'fixture://one' });
    await b.client.subscribeResource({ uri: 'fixture://two' });
    await a.client.callTool({ name: 'touch', arguments: { uri: 'fixture://one' } });
    await a.client.callTool({ name: 'touch', arguments: { uri: 'fixture://two' } });
    // The second update is the sentinel: by then b would have had the first.
    await waitFor(() => updated['b']!.length > 0 && updated['a']!.length > 0, { what: 'the updates' });
    expect(updated['a']).toEqual(['fixture://one']);
    expect(updated['b']).toEqual(['fixture://two']);
    await a.client.close();
    await b.client.close();
  });

  it('cancels the upstream request of a session that is deleted, and only that one', async () => {
    const a = await connectClient(serve.url);
    const b = await connectClient(serve.url);
    const started = fixtureLines().filter((line) => line.endsWith('slow: started')).length;
    const canceled = fixtureLines().filter((line) => line.includes('slow: canceled')).length;
    const running = a.client.callTool({ name: 'slow', arguments: { ms: 60_000 } }).catch(() => 'ended');
    await waitFor(() => fixtureLines().filter((line) => line.endsWith('slow: started')).length > started, {
      what: 'the slow call upstream',
      timeoutMs: WAIT_MS,
    });
    await a.transport.terminateSession();
    await waitFor(() => fixtureLines().filter((line) => line.includes('slow: canceled')).length > canceled, {
      what: 'the cancel upstream',
      timeoutMs: WAIT_MS,
    });
    await a.client.close();
    await running;
    // The other session goes on.
    expect(textOf(await b.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }))).toBe('2');
    await b.client.close();
  });

  it('cancels the upstream request whose stream the client drops', async () => {
    const session = await rawSession(serve.port);
    const started = fixtureLines().filter((line) => line.endsWith('slow: started')).length;
    const canceled = fixtureLines().filter((line) => line.includes('slow: canceled')).length;
    const abort = new AbortController();
    const call = fetch(serve.url, {
      method: 'POST',
      headers: { ...POST_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'slow', arguments: { ms: 60_000 } },
      }),
      signal: abort.signal,
    }).catch(() => 'aborted');
    await waitFor(() => fixtureLines().filter((line) => line.endsWith('slow: started')).length > started, {
      what: 'the slow call upstream',
      timeoutMs: WAIT_MS,
    });
    abort.abort();
    await call;
    await waitFor(() => fixtureLines().filter((line) => line.includes('slow: canceled')).length > canceled, {
      what: 'the cancel upstream',
      timeoutMs: WAIT_MS,
    });
  });

  it('stops on SIGTERM with exit code 0: the sessions end and the upstream child with them', async () => {
    const own = await startServe();
    const { client } = await connectClient(own.url);
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toBe('3');
    const children = processTable.childPids(own.peer.child.pid!);
    expect(children).toHaveLength(1);
    own.peer.child.kill('SIGTERM');
    expect(await own.peer.exit).toEqual({ code: 0, signal: null });
    await waitFor(() => !processTable.isRunning(children[0]!), { what: 'the end of the child' });
    await client.close();
  });
});
