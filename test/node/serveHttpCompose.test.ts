/**
 * The HTTP front end routes by the origin the bridge gives each frame (docs/serve.md#serve-routing):
 * a `compose` that copies every frame still gets a request's progress and input requests on
 * that request's own POST stream, not on the GET stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defer, map, of } from 'rxjs';
import { createMemoryUpstream, EMBEDDED_LIMITS } from '../../src/embed/legacyPath.js';
import { ajvInputChecks } from '../../src/node/inputChecks.js';
import { serveHttpOn } from '../../src/node/serveHttp.js';
import type { HttpServer } from '../../src/node/serveHttp.js';
import { silentLogger } from '../../src/ports/logger.js';
import { genericProfile } from '../../src/profiles/generic.js';
import { DEFAULT_MAX_DEPTH } from '../../src/protocol/parseLine.js';
import { createFixtureServer } from '../fixtures/fixtureFactory.js';

const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
let server: HttpServer;
let copies = 0;

beforeAll(async () => {
  const factory = createFixtureServer({ hooks: { log: () => undefined } });
  server = await serveHttpOn(
    genericProfile,
    {
      connect: () =>
        defer(() =>
          of(
            createMemoryUpstream({
              factory,
              limits: EMBEDDED_LIMITS,
              maxLineBytes: 1 << 20,
              maxDepth: DEFAULT_MAX_DEPTH,
              name: 'fixture',
              version: '1.0.0',
              logger: silentLogger,
              checks: ajvInputChecks,
            }),
          ),
        ),
      settle: () => Promise.resolve(),
      fallback: {},
    },
    {
      logger: silentLogger,
      limits: EMBEDDED_LIMITS,
      checks: ajvInputChecks,
      // Every frame leaves as a new object: no routing may depend on the bridge's own objects.
      compose: (bridge) => (in$) =>
        in$.pipe(
          bridge,
          map((frame) => {
            copies += 1;
            return { ...frame };
          }),
        ),
    },
  );
});
afterAll(async () => {
  await server.close();
});

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

/** An initialized session with form elicitation; its POST headers. */
async function session(): Promise<Record<string, string>> {
  const reply = await fetch(server.url, {
    method: 'POST',
    headers: POST_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  });
  expect(reply.status).toBe(200);
  await reply.text();
  const headers = {
    ...POST_HEADERS,
    'mcp-session-id': reply.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': '2025-11-25',
  };
  const initialized = await fetch(server.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return headers;
}

const post = (headers: Record<string, string>, body: object): Promise<Response> =>
  fetch(server.url, { method: 'POST', headers, body: JSON.stringify(body) });

describe('serveHttp with a compose that copies frames', () => {
  it('sends the progress of a call on the stream of its POST, before its result', async () => {
    const headers = await session();
    const response = await post(headers, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'progress', arguments: { count: 2 }, _meta: { progressToken: 'p-7' } },
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = readEvents(response);
    expect(await events.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'p-7', progress: 1, total: 2, message: 'Step 1 of 2' },
    });
    expect(await events.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'p-7', progress: 2, total: 2, message: 'Step 2 of 2' },
    });
    expect(await events.next()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: 'sent 2 progress notifications' }] },
    });
    expect(copies).toBeGreaterThan(3);
  });

  it('sends an input request on the stream of the POST that caused it, and its result after the answer', async () => {
    const headers = await session();
    const response = await post(headers, {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'ask_form', arguments: {} },
    });
    const events = readEvents(response);
    const asked = await events.next();
    expect(asked).toMatchObject({ jsonrpc: '2.0', method: 'elicitation/create', params: { mode: 'form' } });
    const answer = await post(headers, {
      jsonrpc: '2.0',
      id: asked['id'],
      result: { action: 'accept', content: { name: 'Lin' } },
    });
    expect(answer.status).toBe(202);
    expect(await events.next()).toEqual({
      jsonrpc: '2.0',
      id: 8,
      result: { content: [{ type: 'text', text: 'form: accept {"name":"Lin"}' }] },
    });
  });
});
