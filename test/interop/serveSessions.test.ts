/**
 * Fifty SDK 1.x `StreamableHTTPClientTransport` clients on one `mcp-bridge serve` over the fixture
 * server (docs/serve.md#serve-sessions): each lists, calls, and answers an input round whose
 * question names it; every answer reaches its own session. One client drops the stream of its call
 * while the answered retry is upstream: the others finish, and its upstream request is cancelled.
 * Needs the build (`npm run build`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { killAllPeers } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import { startServe } from '../process/serveSupport.js';
import type { ServeProcess } from '../process/serveSupport.js';
import { firstText } from './interopSupport.js';

const CLIENTS = 50;
const DROPPER = 'client-49';
const WAIT_MS = 25_000;

let serve: ServeProcess;
beforeAll(async () => {
  serve = await startServe();
});
afterAll(killAllPeers);

interface Named {
  readonly name: string;
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** The message of each input request this client got. */
  readonly asked: string[];
  /** Aborts the POSTs that carry tools/call (the dropper's stream of its call). */
  readonly dropCall: () => void;
}

/** A client named `name` that answers each form with `answer of <name>`. */
async function connectNamed(name: string): Promise<Named> {
  const asked: string[] = [];
  const calls: AbortController[] = [];
  // The SDK's own fetch, with an abort of our own on the POSTs of tools/call only.
  const fetchWithDrop = (url: string | URL, init?: RequestInit): Promise<Response> => {
    if (typeof init?.body !== 'string' || !init.body.includes('"tools/call"')) return fetch(url, init);
    const abort = new AbortController();
    calls.push(abort);
    const signals = init.signal ? [init.signal, abort.signal] : [abort.signal];
    return fetch(url, { ...init, signal: AbortSignal.any(signals) });
  };
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { answer: `answer of ${name}` } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(serve.url), { fetch: fetchWithDrop });
  await client.connect(transport);
  return { name, client, transport, asked, dropCall: () => calls.forEach((abort) => abort.abort()) };
}

const fixtureLines = (): string[] =>
  serve.peer.stderr.filter((line) => line.startsWith('bridge-fixture-server: '));

describe(`${CLIENTS} SDK 1.x clients on one serve`, () => {
  it('each lists, calls and answers its own input round; a dropped stream cancels only its request upstream', async () => {
    const names = Array.from({ length: CLIENTS }, (_, i) => `client-${i}`);
    const clients = await Promise.all(names.map(connectNamed));
    expect(new Set(clients.map((c) => c.transport.sessionId)).size).toBe(CLIENTS);

    const dropper = clients.find((c) => c.name === DROPPER)!;
    const dropped = dropper.client
      .callTool({ name: 'ask_named', arguments: { name: DROPPER, holdMs: 60_000 } })
      .then(
        () => 'finished',
        () => 'dropped',
      );
    await waitFor(() => fixtureLines().includes(`bridge-fixture-server: ask_named ${DROPPER}: holding`), {
      what: 'the answered retry of the dropping client upstream',
      timeoutMs: WAIT_MS,
    });
    expect(dropper.asked).toEqual([`Question for ${DROPPER}.`]);

    const others = clients.filter((c) => c !== dropper);
    const running = others.map(async ({ name, client }) => {
      const tools = await client.listTools();
      const added = firstText(await client.callTool({ name: 'add', arguments: { a: 40, b: 2 } }));
      const named = firstText(await client.callTool({ name: 'ask_named', arguments: { name } }));
      return { tools: tools.tools.some((tool) => tool.name === 'ask_named'), added, named };
    });
    // The drop happens while the others are in their rounds.
    dropper.dropCall();
    const results = await Promise.all(running);

    others.forEach(({ name, asked }, i) => {
      expect(asked).toEqual([`Question for ${name}.`]);
      expect(results[i]).toEqual({ tools: true, added: '42', named: `named ${name}: answer of ${name}` });
    });
    await waitFor(() => fixtureLines().includes(`bridge-fixture-server: ask_named ${DROPPER}: canceled`), {
      what: 'the cancel of the dropped request upstream',
      timeoutMs: WAIT_MS,
    });
    // The SDK client itself waits on for its own time limit; its close ends the call.
    await dropper.client.close();
    expect(await dropped).toBe('dropped');
    // Nothing else was cancelled: the one canceled line is the dropper's.
    expect(fixtureLines().filter((line) => line.endsWith(': canceled'))).toEqual([
      `bridge-fixture-server: ask_named ${DROPPER}: canceled`,
    ]);
    await Promise.all(clients.map((c) => c.client.close()));
  }, 40_000);
});
