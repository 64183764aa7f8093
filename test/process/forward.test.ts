/**
 * Forwarding through the built bridge, in raw lines (docs/lifecycle.md#lifecycle-ready, docs/requests.md#requests-progress, docs/requests.md#requests-cancellation,
 * §3.3, §3.6, §3.8, §3.9, §9.3): the eight forwarded methods, progress with the client's token,
 * cancellation, the `_meta` and params that go upstream, and the shaping of results. A tap
 * between the bridge and the fixture shows what the upstream got. Needs the build
 * (`npx tsc -p tsconfig.build.json`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForValue } from '../helpers/waitFor.js';
import {
  FIXTURE,
  bridgeErrorResponse,
  clientFrameProblems,
  handshakeWithin,
  note,
  req,
  scripted,
  startBridge,
  upstreamStderr,
  tapped,
  untilUpstream,
  upstreamFrames,
} from '../helpers/bridgeProcess.js';
import { killAllPeers, notification, parseFrame, responseTo } from '../helpers/rawPeer.js';
import { validateModernRequest } from '../helpers/schemas.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';

/** How long a start may take on a loaded machine (Node twice: the bridge and its upstream). */
const STARTUP_MS = 30_000;

type Tool = { name: string; inputSchema: Frame; outputSchema?: Frame; _meta?: Frame };
/** Keys that the structured content of meta_echo holds as data, and the MCP Apps extension id. */
const ALLOWED = [
  'io.modelcontextprotocol/ui',
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/clientCapabilities',
  'io.modelcontextprotocol/logLevel',
];

let bridge: RawPeer;
let nextId = 100;

beforeAll(async () => {
  bridge = startBridge({ upstream: tapped([process.execPath, FIXTURE, '--many-tools', '29']) });
  expect(await handshakeWithin(bridge, STARTUP_MS)).toHaveProperty('result');
});
afterAll(killAllPeers);

/** Sends a request and resolves with its response, checked against the 2025-11-25 schema. */
async function ask(peer: RawPeer, frame: object): Promise<Frame> {
  const { id, method } = frame as { id: string | number; method: string };
  peer.send(frame);
  const response = await peer.nextFrame(responseTo(id), STARTUP_MS);
  expect(clientFrameProblems(response, 'result' in response ? method : undefined, ALLOWED)).toEqual([]);
  return response;
}

/** The result of a request on the shared bridge; fails the test on an error response. */
async function resultOf(method: string, params?: object, id: string | number = nextId++): Promise<Frame> {
  const response = await ask(bridge, req(id, method, params));
  expect(response).not.toHaveProperty('error');
  return response.result as Frame;
}

const call = (name: string, args: object = {}, extra: object = {}): Promise<Frame> =>
  resultOf('tools/call', { name, arguments: args, ...extra });

/** The frames of stdout from line `from` on. */
const since = (peer: RawPeer, from: number): Frame[] =>
  peer.lines.slice(from).map((line) => parseFrame(line)!);

/** Every tool, following nextCursor; also the pages as they came. */
async function listAll(peer: RawPeer): Promise<{ tools: Tool[]; pages: Frame[] }> {
  const pages: Frame[] = [];
  let cursor: unknown;
  do {
    const response = await ask(
      peer,
      req(`page-${nextId++}`, 'tools/list', cursor === undefined ? {} : { cursor }),
    );
    const page = response.result as Frame;
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages.length < 50);
  return { tools: pages.flatMap((page) => page.tools as Tool[]), pages };
}

describe('tools/list', () => {
  it('gives every tool of the fixture, without a nextCursor on the last page', async () => {
    const { tools, pages } = await listAll(bridge);
    expect(pages.at(-1)).not.toHaveProperty('nextCursor');
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'tool_0', 'tool_28']));
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(tools.length);
  });

  it('never gives a nextCursor that is null: the page of a null cursor ends the list', async ({
    onTestFinished,
  }) => {
    const paged = startBridge({ upstream: scripted('paged') });
    onTestFinished(() => paged.kill());
    await handshakeWithin(paged, STARTUP_MS);
    const { tools, pages } = await listAll(paged);
    expect(pages.map((page) => page.nextCursor)).toEqual(['4', '8', '12', '16', '20', '24', '28', undefined]);
    expect(pages.at(-1)).toEqual({ tools: [{ name: 'tool_28', inputSchema: { type: 'object' } }] });
    expect(tools.map((tool) => tool.name)).toEqual(Array.from({ length: 29 }, (_, i) => `tool_${i}`));
  });

  it('gives each array schema without items an items schema, and logs each change', async () => {
    const before = bridge.stderr.length;
    const { tools } = await listAll(bridge);
    const bare = tools.find((tool) => tool.name === 'bare_array')!;
    expect(bare.inputSchema).toEqual({
      type: 'object',
      properties: {
        values: { type: 'array', description: 'An array without items.', items: {} },
        pair: {
          type: 'array',
          prefixItems: [{ type: 'string' }, { type: 'number' }],
          items: {},
          maxItems: 2,
        },
        choice: { anyOf: [{ type: 'string' }, { type: 'array', items: {} }] },
      },
    });
    const logged = bridge.stderr.slice(before).filter((line) => line.includes("tool 'bare_array'"));
    expect(logged).toEqual(
      ['/properties/values', '/properties/pair', '/properties/choice/anyOf/1'].map(
        (pointer) =>
          `mcp-bridge-vscode: bridge: info: tool 'bare_array': added an items schema at '${pointer}' of the input schema`,
      ),
    );
  });

  it('drops an output schema that is not an object and keeps an object one', async () => {
    const { tools } = await listAll(bridge);
    expect(tools.find((tool) => tool.name === 'array_output')).not.toHaveProperty('outputSchema');
    expect(tools.find((tool) => tool.name === 'structured')?.outputSchema).toMatchObject({ type: 'object' });
  });

  it('keeps the MCP App _meta.ui of the tool show', async () => {
    const { tools } = await listAll(bridge);
    expect(tools.find((tool) => tool.name === 'show')?._meta).toEqual({
      ui: { resourceUri: 'ui://fixture/view' },
    });
  });
});

describe('tools/call', () => {
  it('gives the result of the tool, for numeric, string and 0 ids', async () => {
    for (const id of [1, 'call-a', 0]) {
      expect(await ask(bridge, req(id, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }))).toEqual({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: '5' }] },
      });
    }
  });

  it('forwards progress with the token of the client, only before the response', async () => {
    for (const token of ['tok-1', 0, 7]) {
      const from = bridge.lines.length;
      const id = `progress-${String(token)}`;
      const response = await ask(
        bridge,
        req(id, 'tools/call', { name: 'progress', arguments: { count: 3 }, _meta: { progressToken: token } }),
      );
      expect(response.result).toEqual({ content: [{ type: 'text', text: 'sent 3 progress notifications' }] });
      const frames = since(bridge, from);
      const progress = frames.filter(notification('notifications/progress'));
      expect(progress).toEqual(
        [1, 2, 3].map((step) => ({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: token, progress: step, total: 3, message: `Step ${step} of 3` },
        })),
      );
      for (const frame of progress) expect(clientFrameProblems(frame)).toEqual([]);
      const last = frames.findLastIndex(notification('notifications/progress'));
      expect(last).toBeLessThan(frames.findIndex(responseTo(id)));
    }
  });

  it('forwards no progress when the request has no progress token', async () => {
    const from = bridge.lines.length;
    await call('progress', { count: 2 });
    expect(since(bridge, from).filter(notification('notifications/progress'))).toEqual([]);
    // The upstream got its own request id as the token, and sent its progress for it.
    const [sentCall] = await untilUpstream(
      bridge,
      '>',
      (frame) => (frame.params as { arguments?: { count?: number } } | undefined)?.arguments?.count === 2,
    );
    expect((sentCall!.params as { _meta: Frame })._meta.progressToken).toBe(sentCall!.id);
    const ofCall = (frame: Frame): boolean =>
      notification('notifications/progress')(frame) &&
      (frame.params as { progressToken?: unknown }).progressToken === sentCall!.id;
    await waitFor(() => upstreamFrames(bridge, '<').filter(ofCall).length === 2, {
      what: 'two progress notifications of the upstream for its token',
    });
  });

  it('gives no response to a cancelled call, and the upstream stops the tool', async () => {
    const id = 'slow-cancel';
    bridge.send(req(id, 'tools/call', { name: 'slow', arguments: { ms: 20_001 } }));
    const [upstreamCall] = await untilUpstream(
      bridge,
      '>',
      (frame) => (frame.params as { arguments?: { ms?: number } } | undefined)?.arguments?.ms === 20_001,
    );
    // The bridge is shared by the tests of this file: only what comes after this cancel counts.
    const framesBefore = upstreamFrames(bridge, '>').length;
    const stderrBefore = upstreamStderr(bridge).length;
    bridge.send(note('notifications/cancelled', { requestId: id, reason: 'the user stopped it' }));
    const cancel = await waitForValue(
      () => upstreamFrames(bridge, '>').slice(framesBefore).find(notification('notifications/cancelled')),
      { what: 'the cancel at the upstream' },
    );
    expect(cancel.params).toEqual({
      requestId: upstreamCall!.id,
      reason: 'the client canceled the request',
    });
    await waitFor(
      () =>
        upstreamStderr(bridge)
          .slice(stderrBefore)
          .some((line) => line.startsWith('bridge-fixture-server: slow: canceled')),
      { what: 'the cancel at the tool' },
    );
    // A later request is answered; the cancelled one never is.
    await call('echo', { text: 'after the cancel' });
    expect(bridge.lines.map((line) => parseFrame(line)!).filter(responseTo(id))).toEqual([]);
    // A cancel after the response, or of an unknown id, changes nothing.
    bridge.send(note('notifications/cancelled', { requestId: id }));
    bridge.send(note('notifications/cancelled', { requestId: 'never-sent' }));
    bridge.send(note('notifications/cancelled', {}));
    expect(await call('add', { a: 1, b: 1 })).toEqual({ content: [{ type: 'text', text: '2' }] });
  });

  it('cancels a request named by id 0', async () => {
    bridge.send(req(0, 'tools/call', { name: 'slow', arguments: { ms: 20_002 } }));
    const [upstreamCall] = await untilUpstream(
      bridge,
      '>',
      (frame) => (frame.params as { arguments?: { ms?: number } } | undefined)?.arguments?.ms === 20_002,
    );
    bridge.send(note('notifications/cancelled', { requestId: 0 }));
    await untilUpstream(
      bridge,
      '>',
      (frame) =>
        notification('notifications/cancelled')(frame) &&
        (frame.params as { requestId?: unknown }).requestId === upstreamCall!.id,
    );
    expect(await call('echo', { text: 'after the cancel of 0' })).toHaveProperty('content');
  });

  it('keeps structured content that is an object, with its text block', async () => {
    expect(await call('structured', { text: 'abc' })).toEqual({
      content: [{ type: 'text', text: '3 bytes' }],
      structuredContent: { text: 'abc', length: 3 },
    });
  });

  it('turns structured content that is not an object into a text block, and removes it', async () => {
    expect(await call('array_output')).toEqual({ content: [{ type: 'text', text: '[1,2,3]' }] });
  });

  it('calls the MCP App tool show', async () => {
    expect(await call('show')).toEqual({ content: [{ type: 'text', text: 'showing ui://fixture/view' }] });
  });

  it('sends no task member upstream', async () => {
    const result = await call('echo', { text: 'with a task' }, { task: { ttl: 60_000 } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'with a task' }] });
    const [sent] = await untilUpstream(
      bridge,
      '>',
      (frame) =>
        (frame.params as { arguments?: { text?: string } } | undefined)?.arguments?.text === 'with a task',
    );
    expect(sent!.params).not.toHaveProperty('task');
    expect(sent!.params).toMatchObject({ name: 'echo', arguments: { text: 'with a task' } });
  });

  it('passes traceparent, tracestate and valid vscode.* keys of _meta, and drops the others', async () => {
    const meta = {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'rojo=00f067aa0ba902b7',
      'vscode.conversationId': 'c-1',
      'vscode.requestId': { nested: [1, 2] },
      baggage: 'userId=alice',
      'vscode.bad key': 'x',
      'vscode.mcp/x': 'x',
      'io.modelcontextprotocol/logLevel': 'debug',
      logLevel: 'debug',
      other: 1,
    };
    const echoed = (await call('meta_echo', {}, { _meta: meta })).structuredContent as Frame;
    const { progressToken, ...rest } = echoed;
    expect(typeof progressToken).toBe('number');
    expect(rest).toEqual({
      traceparent: meta.traceparent,
      tracestate: meta.tracestate,
      'vscode.conversationId': 'c-1',
      'vscode.requestId': { nested: [1, 2] },
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'Visual Studio Code', version: '1.140.0' },
      'io.modelcontextprotocol/clientCapabilities': expect.any(Object) as unknown,
    });
  });

  it('sends the level of logging/setLevel upstream, never a level of the client _meta', async ({
    onTestFinished,
  }) => {
    const own = startBridge();
    onTestFinished(() => own.kill());
    await handshakeWithin(own, STARTUP_MS);
    expect(await ask(own, req('lvl', 'logging/setLevel', { level: 'error' }))).toEqual({
      jsonrpc: '2.0',
      id: 'lvl',
      result: {},
    });
    const meta = { 'io.modelcontextprotocol/logLevel': 'debug' };
    const response = await ask(own, req(1, 'tools/call', { name: 'meta_echo', arguments: {}, _meta: meta }));
    const echoed = (response.result as { structuredContent: Frame }).structuredContent;
    expect(echoed['io.modelcontextprotocol/logLevel']).toBe('error');
  });

  it('passes an upstream error unchanged', async () => {
    expect(await ask(bridge, req(5, 'tools/call', { name: 'no_such_tool', arguments: {} }))).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32602, message: 'Tool no_such_tool not found' },
    });
  });
});

describe('prompts, resources and completion', () => {
  it('lists the prompts and gets the prompt greet', async () => {
    const listed = await resultOf('prompts/list');
    expect((listed.prompts as { name: string }[]).map((prompt) => prompt.name)).toContain('greet');
    expect(await resultOf('prompts/get', { name: 'greet', arguments: { name: 'Ada' } }, 'greet')).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada.' } }],
    });
  });

  it('lists the resources and reads the notes and the view of the MCP App', async () => {
    const listed = await resultOf('resources/list');
    expect((listed.resources as { uri: string }[]).map((resource) => resource.uri)).toEqual(
      expect.arrayContaining(['file:///fixture/notes.txt', 'ui://fixture/view']),
    );
    expect(await resultOf('resources/read', { uri: 'file:///fixture/notes.txt' })).toEqual({
      contents: [
        { uri: 'file:///fixture/notes.txt', mimeType: 'text/plain', text: 'The notes of the fixture.' },
      ],
    });
    const view = await resultOf('resources/read', { uri: 'ui://fixture/view' });
    expect(view.contents).toEqual([expect.objectContaining({ mimeType: 'text/html;profile=mcp-app' })]);
  });

  it('lists the resource templates', async () => {
    const listed = await resultOf('resources/templates/list', {}, 0);
    expect(listed.resourceTemplates).toEqual([
      expect.objectContaining({ name: 'file', uriTemplate: 'file:///fixture/{name}' }),
    ]);
  });

  it('completes an argument of a prompt and of a resource template', async () => {
    const prompt = await resultOf('completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'A' },
    });
    expect(prompt.completion).toMatchObject({ values: ['Ada', 'Alan'] });
    const resource = await resultOf('completion/complete', {
      ref: { type: 'ref/resource', uri: 'file:///fixture/{name}' },
      argument: { name: 'name', value: 'r' },
    });
    expect(resource.completion).toMatchObject({ values: ['readme.txt'] });
  });
});

describe('methods that are not forwarded', () => {
  it('answers tasks/list and other unknown methods with -32601, and sends nothing upstream', async () => {
    const methods = [
      [10, 'tasks/list'],
      ['get', 'tasks/get'],
      [0, 'sampling/createMessage'],
      [11, 'Tools/List'],
      [12, 'server/discover'],
      [13, 'subscriptions/listen'],
    ] as const;
    for (const [id, method] of methods) {
      expect(await ask(bridge, req(id, method, {}))).toEqual(bridgeErrorResponse(id, 'method_not_found'));
    }
    // A forwarded request after them: once the upstream got it, it would have got them before.
    await call('echo', { text: 'marker of the end' });
    await untilUpstream(
      bridge,
      '>',
      (frame) =>
        (frame.params as { arguments?: { text?: string } } | undefined)?.arguments?.text ===
        'marker of the end',
    );
    const sent = upstreamFrames(bridge, '>').map((frame) => frame.method);
    expect(sent.filter((method) => method === 'server/discover')).toHaveLength(1);
    expect(sent.filter((method) => method === 'subscriptions/listen').length).toBeLessThanOrEqual(1);
    for (const [, method] of methods.slice(0, 4)) expect(sent).not.toContain(method);
  });
});

describe('the upstream side, in a session of its own', () => {
  // Its own bridge, driven here, so that each check below passes or fails alone.
  let own: RawPeer;
  let ownId = 1000;
  const ownResult = async (method: string, params?: object): Promise<Frame> => {
    const response = await ask(own, req(ownId++, method, params));
    expect(response).not.toHaveProperty('error');
    return response.result as Frame;
  };
  beforeAll(async () => {
    own = startBridge({ upstream: tapped([process.execPath, FIXTURE, '--many-tools', '29']) });
    expect(await handshakeWithin(own, STARTUP_MS)).toHaveProperty('result');
    await listAll(own);
    const tool = (name: string, args: object = {}, extra: object = {}) =>
      ownResult('tools/call', { name, arguments: args, ...extra });
    await tool('echo', { text: 'hello' });
    await tool('progress', { count: 2 }, { _meta: { progressToken: 'own' } });
    await tool('structured', { text: 'abc' });
    await tool('array_output');
    await tool('show');
    await tool('meta_echo', {}, { _meta: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` } });
    await ownResult('prompts/list');
    await ownResult('prompts/get', { name: 'greet', arguments: { name: 'Ada' } });
    await ownResult('resources/list');
    await ownResult('resources/read', { uri: 'file:///fixture/notes.txt' });
    await ownResult('resources/read', { uri: 'ui://fixture/view' });
    await ownResult('resources/templates/list', {});
    await ownResult('completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'A' },
    });
  });

  it('sends server/discover first, with the identity and the capabilities of VS Code', () => {
    const [discover] = upstreamFrames(own, '>');
    expect(discover).toMatchObject({ jsonrpc: '2.0', method: 'server/discover' });
    expect((discover!.params as { _meta: Frame })._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'Visual Studio Code', version: '1.140.0' },
      'io.modelcontextprotocol/clientCapabilities': {
        roots: {},
        sampling: {},
        elicitation: { form: {}, url: {} },
      },
    });
  });

  it('writes only valid 2025-11-25 frames to the client, without a member of 2026-07-28', () => {
    expect(own.lines.length).toBeGreaterThan(15);
    for (const line of own.lines) {
      expect(clientFrameProblems(parseFrame(line)!, undefined, ALLOWED), line.slice(0, 120)).toEqual([]);
    }
  });

  it('sends only valid 2026-07-28 requests, each with the protocol _meta and an integer id of its own', () => {
    const requests = upstreamFrames(own, '>').filter((frame) => 'id' in frame && 'method' in frame);
    expect(requests.length).toBeGreaterThan(10);
    for (const frame of requests) {
      expect(validateModernRequest(frame), JSON.stringify(frame.method)).toEqual([]);
      const meta = (frame.params as { _meta: Frame })._meta;
      expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
      expect(meta.progressToken).toBe(frame.id);
    }
    const ids = requests.map((frame) => frame.id as number);
    expect(ids.every(Number.isInteger)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
