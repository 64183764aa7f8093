/**
 * Interop (docs/testing.md#testing-ci): the real `@modelcontextprotocol/sdk`
 * 1.x `Client` (the client family of VS Code) over its `StdioClientTransport` drives the built
 * `mcp-bridge-vscode` in front of the 2026-07-28-only fixture server, and fails against the fixture
 * alone. A recording wrapper around the transport keeps every JSON-RPC message of both directions,
 * so that order and exact shapes are checked on what went over the pipe.
 * Needs the build (`npx tsc -p tsconfig.build.json`).
 */
import type { ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { ElicitResult, JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BRIDGE, FIXTURE, GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { waitFor } from '../helpers/waitFor.js';
import { bridgeTransport, dropAcknowledgedListen, firstText } from './interopSupport.js';

const NOTES = 'file:///fixture/notes.txt';
const SIGN_IN_URL = 'https://fixture.example.com/sign-in';
const CWD_ROOT = { uri: pathToFileURL(process.cwd()).href, name: 'cwd' };
const TOOLS = 'notifications/tools/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';
const RESOURCES = 'notifications/resources/list_changed';
const LIST_CHANGES: readonly string[] = [TOOLS, PROMPTS, RESOURCES];

type Message = JSONRPCMessage & { id?: string | number; method?: string; params?: Record<string, unknown> };

/** A transport that records every message it sends and receives, in order. */
class RecordingTransport implements Transport {
  readonly messages: { direction: 'in' | 'out'; message: Message }[] = [];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  constructor(readonly inner: StdioClientTransport) {}

  start(): Promise<void> {
    this.inner.onmessage = (message: JSONRPCMessage) => {
      this.messages.push({ direction: 'in', message: message as Message });
      this.onmessage?.(message);
    };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    return this.inner.start();
  }
  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    this.messages.push({ direction: 'out', message: message as Message });
    return this.inner.send(message);
  }
  close(): Promise<void> {
    return this.inner.close();
  }

  /** Messages received from the server, from index `from` of `messages` on. */
  received(from = 0): Message[] {
    return this.messages
      .slice(from)
      .filter((entry) => entry.direction === 'in')
      .map((entry) => entry.message);
  }
  /** Notifications received with `method`. */
  notifications(method: string, from = 0): Message[] {
    return this.received(from).filter((message) => message.method === method && !('id' in message));
  }
  /** The id of the last request sent with `method` (and tool `name`). */
  lastRequestId(method: string, name?: string): string | number {
    const sent = this.messages.filter(
      ({ direction, message }) =>
        direction === 'out' &&
        message.method === method &&
        'id' in message &&
        (name === undefined || message.params?.name === name),
    );
    return sent.at(-1)!.message.id!;
  }
  /** The index in `received()` of the response to the request `id`. */
  responseIndex(id: string | number, from = 0): number {
    return this.received(from).findIndex(
      (message) => message.id === id && ('result' in message || 'error' in message),
    );
  }
}

/** Fills a form as the interop job of the original does: first enum value, "Ada", 36, true. */
function fill(schema: {
  properties?: Record<string, { type?: string; enum?: unknown[] }>;
}): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([key, property]) => {
      if (Array.isArray(property.enum)) return [key, property.enum[0]];
      if (property.type === 'integer' || property.type === 'number') return [key, 36];
      if (property.type === 'boolean') return [key, true];
      return [key, 'Ada'];
    }),
  );
}

/** Every node of a schema (through any member), for the items check. */
function* nodes(value: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(value)) {
    for (const item of value) yield* nodes(item);
  } else if (typeof value === 'object' && value !== null) {
    yield value as Record<string, unknown>;
    for (const child of Object.values(value)) yield* nodes(child);
  }
}

// Both executables share the CLI; they differ in their profile.
const EXECUTABLES = [
  { name: 'mcp-bridge-vscode', bin: BRIDGE, itemsFix: true },
  { name: 'mcp-bridge', bin: GENERIC_BRIDGE, itemsFix: false },
];

describe.each(EXECUTABLES)('the @modelcontextprotocol/sdk 1.x Client through $name', ({ bin, itemsFix }) => {
  let client: Client;
  let transport: RecordingTransport;
  let bridgeProcess: ChildProcess;
  /** What the next form gets: accept with `fill`, decline or cancel. */
  let formAction: ElicitResult['action'] = 'accept';
  const asked: { mode: string; message: string; url?: string; elicitationId?: string }[] = [];

  // Each test has its own bridge and fixture: every test passes alone and in any order.
  beforeEach(async () => {
    formAction = 'accept';
    asked.length = 0;
    transport = new RecordingTransport(
      new StdioClientTransport(
        bridgeTransport({
          command: process.execPath,
          // As the interop job of the original: 150 more tools than the catalogue.
          args: [bin, '--', process.execPath, FIXTURE, '--many-tools', '150'],
          stderr: 'ignore',
        }),
      ),
    );
    client = new Client(
      { name: 'interop-legacy-client', version: '1.0.0' },
      { capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } } },
    );
    client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
      const params = request.params;
      if (params.mode === 'url') {
        asked.push({
          mode: 'url',
          message: params.message,
          url: params.url,
          elicitationId: params.elicitationId,
        });
        return { action: 'accept' };
      }
      asked.push({ mode: 'form', message: params.message });
      if (formAction !== 'accept') return { action: formAction };
      return { action: 'accept', content: fill(params.requestedSchema) as ElicitResult['content'] };
    });
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      model: 'interop',
      role: 'assistant',
      content: { type: 'text', text: 'hello' },
    }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: [CWD_ROOT, { uri: 'vscode-vfs://github/owner/repo', name: 'remote' }],
    }));
    await client.connect(transport);
    bridgeProcess = (transport.inner as unknown as { _process: ChildProcess })._process;
  });

  afterEach(async () => {
    // Whatever a session did, no notifications/cancelled ever reaches the client.
    expect(transport.notifications('notifications/cancelled')).toEqual([]);
    await client.close();
  });

  it('connects with the negotiated version 2025-11-25, a usable serverInfo and the declared capabilities', () => {
    const initialize = transport.received().find((message) => 'result' in message)!;
    expect((initialize as unknown as { result: { protocolVersion: string } }).result.protocolVersion).toBe(
      '2025-11-25',
    );
    expect(client.getServerVersion()).toEqual({ name: 'bridge-fixture-server', version: '0.0.0' });
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      logging: {},
    });
    expect(client.getInstructions()).toBe('The upstream server of the mcp-bridge-sdk tests.');
  });

  it('gets no list change at the start, having listed nothing, and one per list after a gap of the listen stream', async () => {
    await dropAcknowledgedListen(() => client.callTool({ name: 'drop_listen' }));
    expect(LIST_CHANGES.map((method) => transport.notifications(method).length)).toEqual([0, 0, 0]);
    await waitFor(() => LIST_CHANGES.every((method) => transport.notifications(method).length > 0), {
      what: 'one list change per list',
    });
    expect(LIST_CHANGES.map((method) => transport.notifications(method).length)).toEqual([1, 1, 1]);
  });

  it(`lists tools whose input schemas compile with Ajv draft-07 after adding a root properties, ${itemsFix ? 'with no array node without items (the VS Code quirk)' : 'with the array node of bare_array left without items (no VS Code quirk)'}`, async () => {
    const tools: Awaited<ReturnType<Client['listTools']>>['tools'] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      // A cursor is a string or absent, never null.
      expect(['string', 'undefined']).toContain(typeof page.nextCursor);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(tools.filter((tool) => tool.name.startsWith('tool_'))).toHaveLength(150);
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['echo', 'add', 'bare_array', 'ask_form']),
    );
    // Draft-07 ignores keywords it does not know, as VS Code's own draft-07 check does: the bridge
    // keeps the 2020-12 `prefixItems` of bare_array next to the items it adds. Ajv's strict mode,
    // an Ajv extension, would refuse that unknown keyword, so only that part of it is off.
    const ajv = new Ajv({ strictSchema: false });
    for (const tool of tools) {
      const schema = { ...tool.inputSchema, properties: tool.inputSchema.properties ?? {} };
      expect(ajv.validateSchema(schema), `${tool.name}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
      expect(() => ajv.compile(schema), tool.name).not.toThrow();
      if (!itemsFix) continue;
      for (const node of nodes(schema)) {
        if (node.type === 'array')
          expect(Boolean(node.items), `${tool.name}: array without items`).toBe(true);
      }
    }
    // docs/results.md#results-items-fix is a quirk of the VS Code profile only: the generic profile
    // passes the array schema of bare_array as the upstream wrote it.
    const bare = tools.find((tool) => tool.name === 'bare_array');
    const bareArrays = [...nodes(bare?.inputSchema)].filter((node) => node.type === 'array');
    expect(bareArrays.length).toBeGreaterThan(0);
    expect(bareArrays.every((node) => Boolean(node.items))).toBe(itemsFix);
  });

  it('calls echo, add and bare_array', async () => {
    expect(firstText(await client.callTool({ name: 'echo', arguments: { text: 'hello' } }))).toBe('hello');
    expect(firstText(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(firstText(await client.callTool({ name: 'bare_array', arguments: { values: [1, 2] } }))).toBe(
      '2 values',
    );
  });

  it('gets a prompt, reads a resource and completes a prompt argument', async () => {
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada.' } }]);
    const resource = await client.readResource({ uri: NOTES });
    expect(resource.contents).toEqual([
      { uri: NOTES, mimeType: 'text/plain', text: 'The notes of the fixture.' },
    ]);
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'A' },
    });
    expect(completion.completion.values).toEqual(['Ada', 'Alan']);
  });

  it('ask_form: accept, decline and cancel reach the tool', async () => {
    const profile = { name: 'Ada', age: 36, subscribe: true, color: 'red' };
    expect(firstText(await client.callTool({ name: 'ask_form' }))).toBe(
      `form: accept ${JSON.stringify(profile)}`,
    );
    formAction = 'decline';
    expect(firstText(await client.callTool({ name: 'ask_form' }))).toBe('form: decline');
    formAction = 'cancel';
    expect(firstText(await client.callTool({ name: 'ask_form' }))).toBe('form: cancel');
    formAction = 'accept';
  });

  it('ask_url: the URL with an elicitationId, and exactly one notifications/elicitation/complete before the result', async () => {
    const from = transport.messages.length;
    expect(firstText(await client.callTool({ name: 'ask_url' }))).toBe('url: accept');
    const url = asked.at(-1)!;
    expect(url).toEqual({
      mode: 'url',
      message: 'Sign in to continue.',
      url: SIGN_IN_URL,
      elicitationId: expect.stringMatching(/^elicitation-\d+$/),
    });
    const completes = transport.notifications('notifications/elicitation/complete', from);
    expect(completes.map((message) => message.params)).toEqual([{ elicitationId: url.elicitationId }]);
    const received = transport.received(from);
    const response = transport.responseIndex(transport.lastRequestId('tools/call', 'ask_url'), from);
    expect(received.indexOf(completes[0]!)).toBeLessThan(response);
  });

  it('ask_url_twice: the accepted URL asked again in round 2 is a Continue form', async () => {
    const from = asked.length;
    const messages = transport.messages.length;
    expect(firstText(await client.callTool({ name: 'ask_url_twice' }))).toBe('url twice: accept');
    expect(asked.slice(from).map((entry) => entry.mode)).toEqual(['url', 'form']);
    expect(asked.at(-1)!.message).toMatch(/Continue/);
    expect(transport.notifications('notifications/elicitation/complete', messages)).toHaveLength(1);
  });

  it('ask_bad_url: no file: URL ever reaches the client, and the tool gets decline', async () => {
    const from = asked.length;
    expect(firstText(await client.callTool({ name: 'ask_bad_url' }))).toBe('url: decline');
    expect(asked.slice(from)).toEqual([]);
    expect(JSON.stringify(transport.received())).not.toContain('file:///etc');
  });

  it('ask_url then ask_url_twice: two URL elicitations in all, each with an elicitationId and exactly one completion', async () => {
    expect(firstText(await client.callTool({ name: 'ask_url' }))).toBe('url: accept');
    expect(firstText(await client.callTool({ name: 'ask_url_twice' }))).toBe('url twice: accept');
    const urls = asked.filter((entry) => entry.mode === 'url');
    expect(urls).toHaveLength(2);
    const completes = transport.notifications('notifications/elicitation/complete');
    expect(completes.map((message) => message.params?.elicitationId).sort()).toEqual(
      urls.map((entry) => entry.elicitationId).sort(),
    );
  });

  it('ask_sample, ask_roots (non-file roots filtered out), multi, two_rounds and the prompt ask_name', async () => {
    expect(firstText(await client.callTool({ name: 'ask_sample' }))).toBe('model: hello');
    expect(firstText(await client.callTool({ name: 'ask_roots' }))).toBe(`roots: ${CWD_ROOT.uri}`);
    expect(firstText(await client.callTool({ name: 'multi' }))).toBe('name: Ada (accept); roots: 1');
    expect(firstText(await client.callTool({ name: 'two_rounds' }))).toBe('two rounds: Ada, Ada');
    const prompt = await client.getPrompt({ name: 'ask_name' });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada.' } }]);
  });

  it('an unsolicited notifications/tools/list_changed arrives after add_tool, before its result', async () => {
    const from = transport.messages.length;
    expect(firstText(await client.callTool({ name: 'add_tool' }))).toBe('added added_1');
    const [change] = transport.notifications(TOOLS, from);
    expect(change).toEqual({ jsonrpc: '2.0', method: TOOLS });
    const received = transport.received(from);
    expect(received.indexOf(change!)).toBeLessThan(
      transport.responseIndex(transport.lastRequestId('tools/call', 'add_tool'), from),
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('added_1');
  });

  it('toggle: the list change comes before the result, and a new list shows the change', async () => {
    const from = transport.messages.length;
    await client.callTool({ name: 'toggle', arguments: { enabled: false } });
    const [change] = transport.notifications(TOOLS, from);
    expect(transport.received(from).indexOf(change!)).toBeLessThan(
      transport.responseIndex(transport.lastRequestId('tools/call', 'toggle'), from),
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('toggled');
    await client.callTool({ name: 'toggle', arguments: { enabled: true } });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('toggled');
  });

  it('resources/subscribe then touch gives notifications/resources/updated without _meta, and nothing after resources/unsubscribe', async () => {
    await client.subscribeResource({ uri: NOTES });
    const from = transport.messages.length;
    await client.callTool({ name: 'touch', arguments: { uri: NOTES } });
    const updates = transport.notifications('notifications/resources/updated', from);
    expect(updates).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: NOTES } },
    ]);
    expect(transport.received(from).indexOf(updates[0]!)).toBeLessThan(
      transport.responseIndex(transport.lastRequestId('tools/call', 'touch'), from),
    );
    await client.unsubscribeResource({ uri: NOTES });
    const after = transport.messages.length;
    await client.callTool({ name: 'touch', arguments: { uri: NOTES } });
    // Sentinels: an update comes before the result of touch, and anything the bridge wrote
    // before the answer of a ping.
    await client.ping();
    expect(transport.notifications('notifications/resources/updated', after)).toEqual([]);
  });

  it('logging/setLevel controls the notifications/message of the log tool', async () => {
    const message = (level: string) => ({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level, logger: 'fixture', data: `a message at the level ${level}` },
    });
    await client.setLoggingLevel('debug');
    let from = transport.messages.length;
    await client.callTool({ name: 'log' });
    let id = transport.lastRequestId('tools/call', 'log');
    expect(transport.received(from).slice(0, transport.responseIndex(id, from))).toEqual(
      ['debug', 'info', 'warning', 'error'].map(message),
    );
    await client.setLoggingLevel('warning');
    from = transport.messages.length;
    await client.callTool({ name: 'log' });
    id = transport.lastRequestId('tools/call', 'log');
    expect(transport.received(from).slice(0, transport.responseIndex(id, from))).toEqual(
      ['warning', 'error'].map(message),
    );
  });

  it('after drop_listen the bridge reopens the listen stream, and list changes still arrive', async () => {
    // The first gap: the stream of the start ends, and the next one replays every list.
    let from = transport.messages.length;
    await dropAcknowledgedListen(() => client.callTool({ name: 'drop_listen' }));
    const replayed = (): boolean =>
      LIST_CHANGES.every((method) => transport.notifications(method, from).length > 0);
    await waitFor(replayed, { what: 'the replay after the first reopen' });
    // The replay came with the acknowledgment of the reopened stream: drop_listen ends that one.
    from = transport.messages.length;
    expect(firstText(await client.callTool({ name: 'drop_listen' }))).toBe('ended 1 listen streams');
    // The new stream's acknowledgment replays one change per list.
    await waitFor(replayed, { what: 'the replay after the reopen' });
    const added = transport.messages.length;
    expect(firstText(await client.callTool({ name: 'add_tool' }))).toBe('added added_1');
    expect(transport.notifications(TOOLS, added)).toHaveLength(1);
  });

  it('closing stdin ends the bridge with code 0 within 2 s', async () => {
    const exited = new Promise<number | null>((resolve) =>
      bridgeProcess.once('exit', (code) => resolve(code)),
    );
    const started = Date.now();
    await client.close();
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('the same client against the fixture server directly', () => {
  it('fails: the fixture rejects its initialize with -32022, so the bridge is what makes it work', async () => {
    const client = new Client({ name: 'interop-legacy-client', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [FIXTURE],
      stderr: 'ignore',
    });
    try {
      const failure = await client.connect(transport).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(McpError);
      expect((failure as McpError).code).toBe(-32022);
    } finally {
      await client.close();
    }
  });
});
