/**
 * One session per client revision (docs/revisions.md), in process, in front of an upstream that
 * returns everything 2025-11-25 has: icons, titles, structured output, resource links, audio,
 * input rounds (form with a titled enum and defaults, URL, multi-select, sampling), progress with
 * a message, listen events, a log message and an error. Every frame written to the client is
 * checked against the official schema of the client's revision and its closed variant
 * (test/helpers/schemas.ts), and the capabilities sent upstream are those the revision can have.
 */
import { Subject, concat, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { EVERY_CAPABILITY, LISTS_AND_LOGGING } from '../helpers/capabilities.js';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import { createBridge } from '../../src/bridge/createBridge.js';
import type { Logger } from '../../src/ports/logger.js';
import type { ExchangeEvent, UpstreamConnection } from '../../src/ports/upstream.js';
import type { Frame, JsonObject } from '../../src/protocol/jsonrpc.js';
import { DEFAULT_MAX_DEPTH, parseLine } from '../../src/protocol/parseLine.js';
import type { Inbound } from '../../src/protocol/parseLine.js';
import { createFakeUpstream } from '../../src/testing/fakeUpstream.js';
import type { FakeHandler, FakeRequest, FakeUpstream } from '../../src/testing/fakeUpstream.js';
import { CLIENT_REVISIONS, validateClientFrame } from '../helpers/schemas.js';
import type { ClientRevision } from '../helpers/schemas.js';
import { ajvInputChecks } from '../../src/codec/input/schemas.js';
import { urlQuestion } from '../helpers/elicitations.js';

const ICON = { src: 'data:image/png;base64,AAAA', mimeType: 'image/png' };
const NOTES = 'file:///fixture/notes.txt';
const CAPS_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** What VS Code declares (2025-11-25). */
const FULL_CAPABILITIES = {
  roots: { listChanged: true },
  sampling: { tools: {}, context: {} },
  elicitation: { form: {}, url: {} },
  tasks: { list: {} },
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};

/** What a client of each revision can declare, from the ClientCapabilities of its schema. */
const REVISION_CAPABILITIES: Readonly<Record<ClientRevision, JsonObject>> = {
  '2025-11-25': FULL_CAPABILITIES,
  '2025-06-18': { roots: { listChanged: true }, sampling: {}, elicitation: {} },
  '2025-03-26': { roots: { listChanged: true }, sampling: {} },
  '2024-11-05': { roots: { listChanged: true }, sampling: {} },
};

/** Codex 0.169's `initialize`: 2025-06-18 with the modes of 2025-11-25's elicitation. */
const CODEX_INITIALIZE = {
  protocolVersion: '2025-06-18',
  capabilities: { elicitation: { form: {}, url: {} } },
  clientInfo: { name: 'codex-mcp-client', version: '0.169.0' },
};

const TOOL = {
  name: 'weather',
  title: 'Weather',
  description: 'The weather of a city.',
  icons: [ICON],
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  outputSchema: { type: 'object', properties: { celsius: { type: 'number' } } },
  annotations: { readOnlyHint: true },
  execution: { taskSupport: 'optional' },
  _meta: { 'example.com/kind': 'read' },
};
const RESOURCE = {
  uri: NOTES,
  name: 'notes',
  title: 'Notes',
  icons: [ICON],
  mimeType: 'text/plain',
  annotations: { audience: ['user'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' },
  _meta: { 'example.com/owner': 'ada' },
};
const TEMPLATE = { uriTemplate: 'file:///fixture/{name}', name: 'files', title: 'Files', icons: [ICON] };
const PROMPT = {
  name: 'greet',
  title: 'Greet',
  icons: [ICON],
  arguments: [{ name: 'who', title: 'Who', required: true }],
};
const LINK = { type: 'resource_link', uri: NOTES, name: 'notes', mimeType: 'text/plain', icons: [ICON] };
const AUDIO = { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' };
const RICH_CONTENT = [
  { type: 'text', text: 'sunny', _meta: { 'example.com/x': 1 } },
  LINK,
  AUDIO,
  { type: 'resource', resource: { uri: NOTES, text: 'notes', _meta: { 'example.com/y': 2 } } },
];
const FORM = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Pick a colour.',
    requestedSchema: {
      type: 'object',
      properties: {
        colour: {
          type: 'string',
          title: 'Colour',
          oneOf: [
            { const: 'r', title: 'Red' },
            { const: 'g', title: 'Green' },
          ],
          default: 'r',
        },
        note: { type: 'string', default: 'none' },
        loud: { type: 'boolean', default: false },
      },
      required: ['colour'],
    },
  },
};
const MULTI = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Pick colours.',
    requestedSchema: {
      type: 'object',
      properties: { colours: { type: 'array', items: { type: 'string', enum: ['r', 'g'] } } },
    },
  },
};
const URL_ASK = {
  method: 'elicitation/create',
  params: { mode: 'url', message: 'Sign in.', url: 'https://example.com/sign-in' },
};
const SAMPLE = {
  method: 'sampling/createMessage',
  params: {
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }], _meta: { 'example.com/z': 3 } }],
    maxTokens: 10,
  },
};
const ASKS: Readonly<Record<string, JsonObject>> = {
  ask_form: FORM,
  ask_multi: MULTI,
  ask_url: URL_ASK,
  ask_sample: SAMPLE,
};

const complete = (result: object): JsonObject => ({ resultType: 'complete', ...result });

/** The upstream: one answer per method and tool; the params of every request it got. */
function richUpstream(): { upstream: UpstreamConnection; requests: readonly FakeRequest[] } {
  const ask =
    (request: JsonObject): FakeHandler =>
    (params) => {
      const responses = params['inputResponses'];
      return responses === undefined
        ? { resultType: 'input_required', inputRequests: { ask: request } }
        : complete({ content: [{ type: 'text', text: JSON.stringify(responses) }] });
    };
  const fake: FakeUpstream = createFakeUpstream({
    serverInfo: {
      name: 'rich',
      version: '1.0.0',
      title: 'Rich server',
      description: 'Has everything.',
      websiteUrl: 'https://example.com',
      icons: [ICON],
    },
    capabilities: { ...EVERY_CAPABILITY, extensions: { 'io.modelcontextprotocol/ui': {} } },
    listen: {
      events: [
        { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
        { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: NOTES } },
      ],
    },
    toolList: [TOOL],
    resources: [RESOURCE],
    prompts: [PROMPT],
    methods: {
      'resources/templates/list': () => ({ resourceTemplates: [TEMPLATE] }),
      'prompts/get': () => ({
        messages: [
          { role: 'user', content: LINK },
          { role: 'user', content: AUDIO },
        ],
      }),
      'resources/read': () => ({ contents: [{ uri: NOTES, text: 'notes', _meta: { 'example.com/y': 2 } }] }),
      'completion/complete': () => ({ completion: { values: ['Ada'] } }),
    },
    tools: {
      ...Object.fromEntries(Object.entries(ASKS).map(([name, request]) => [name, ask(request)])),
      rich: () => ({ content: RICH_CONTENT, structuredContent: { celsius: 21 } }),
      structured: () => ({ content: [], structuredContent: { celsius: 21 } }),
      progress: (_params, request) =>
        concat(
          of<ExchangeEvent[]>({
            type: 'notification',
            frame: {
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken: request.id, progress: 1, total: 2, message: 'half way' },
            },
          }),
          of<ExchangeEvent[]>({
            type: 'response',
            frame: {
              jsonrpc: '2.0',
              id: request.id,
              result: complete({ content: [{ type: 'text', text: 'done' }] }),
            },
          }),
        ),
      log: () => {
        fake.notify({
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'warning', logger: 'rich', data: 'a warning' },
        });
        return complete({ content: [{ type: 'text', text: 'logged' }] });
      },
    },
  });
  return { upstream: fake.connection, requests: fake.requests };
}

const PARSE_LIMITS = { maxDepth: DEFAULT_MAX_DEPTH, maxLineBytes: 1 << 20 };
const silent: Logger = { log: () => undefined, enabled: () => false };

/** One client connection of `revision`: what it sends, what it got, the method of each id. */
function clientOf(revision: ClientRevision) {
  const { upstream, requests } = richUpstream();
  const lines$ = new Subject<Inbound>();
  const out: Frame[] = [];
  const methods = new Map<unknown, string>();
  createBridge(
    { version: '9.9.9', fallbackName: 'fake', limits: DEFAULT_LIMITS },
    { connect: () => of(upstream), logger: silent, checks: ajvInputChecks },
  )(lines$).subscribe((frame) => out.push(frame));
  const sendLine = (text: string): void =>
    lines$.next(parseLine({ kind: 'line', bytes: new TextEncoder().encode(text) }, PARSE_LIMITS));
  const send = (frame: object): void => {
    const value = frame as { id?: unknown; method?: unknown };
    if (value.id !== undefined && typeof value.method === 'string') methods.set(value.id, value.method);
    sendLine(JSON.stringify(frame));
  };
  let nextId = 1;
  /** Sends a request; returns the frames it caused (its response last, when it came). */
  const call = (method: string, params?: object): Frame[] => {
    const start = out.length;
    send({ jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) });
    return out.slice(start);
  };
  const answerLast = (result: object): Frame[] => {
    const request = out.at(-1) as { id?: unknown };
    const start = out.length;
    send({ jsonrpc: '2.0', id: request.id, result });
    return out.slice(start);
  };
  return { out, methods, requests, call, send, sendLine, answerLast, revision };
}

const resultOf = (frames: Frame[]): JsonObject => (frames.at(-1) as { result: JsonObject }).result;
const errorOf = (frames: Frame[]): { code: number; data: { cause: string; detail?: string } } =>
  (frames.at(-1) as unknown as { error: { code: number; data: { cause: string; detail?: string } } }).error;

/** The whole session of one client; returns the client for the checks. */
function runSession(revision: ClientRevision, capabilities = REVISION_CAPABILITIES[revision]) {
  const client = clientOf(revision);
  const { call } = client;
  const init = call('initialize', {
    protocolVersion: revision,
    capabilities,
    clientInfo: { name: 'client', version: '1.0.0' },
  });
  // The fake acknowledges the listen stream at once, then changes the tools list: a list change to
  // check. A list fetched before the acknowledgment would wait for it (docs/notifications.md).
  client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const lists = {
    tools: resultOf(call('tools/list')),
    resources: resultOf(call('resources/list')),
    templates: resultOf(call('resources/templates/list')),
    prompts: resultOf(call('prompts/list')),
  };
  // The fake sends its update on every listen stream: it reaches the client for a URI it subscribed to.
  call('resources/subscribe', { uri: NOTES });
  const prompt = resultOf(call('prompts/get', { name: 'greet', arguments: { who: 'Ada' } }));
  const read = resultOf(call('resources/read', { uri: NOTES }));
  call('completion/complete', {
    ref: { type: 'ref/prompt', name: 'greet' },
    argument: { name: 'who', value: 'A' },
  });
  const rich = resultOf(call('tools/call', { name: 'rich', arguments: {} }));
  const structured = resultOf(call('tools/call', { name: 'structured', arguments: {} }));
  const progress = call('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'p-1' } });
  call('logging/setLevel', { level: 'info' });
  const log = call('tools/call', { name: 'log', arguments: {} });
  const form = call('tools/call', { name: 'ask_form', arguments: {} });
  const formEnd =
    'method' in (form.at(-1) ?? {})
      ? client.answerLast({ action: 'accept', content: { colour: 'g' } })
      : form;
  const sample = call('tools/call', { name: 'ask_sample', arguments: {} });
  const sampleEnd =
    'method' in (sample.at(-1) ?? {})
      ? client.answerLast({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' })
      : sample;
  const url = call('tools/call', { name: 'ask_url', arguments: {} });
  const multi = call('tools/call', { name: 'ask_multi', arguments: {} });
  const failed = call('tools/call', { name: 'no_such_tool', arguments: {} });
  const batchStart = client.out.length;
  client.sendLine('[{"jsonrpc":"2.0","id":90,"method":"ping"},{"jsonrpc":"2.0","id":91,"method":"ping"}]');
  const batch = client.out.slice(batchStart);
  return {
    client,
    init,
    lists,
    prompt,
    read,
    rich,
    structured,
    progress,
    log,
    form,
    formEnd,
    sample,
    sampleEnd,
    url,
    multi,
    failed,
    batch,
  };
}

/** Every frame written to the client, checked against the schemas of its revision. */
function problemsOf(client: ReturnType<typeof clientOf>): string[] {
  return client.out.flatMap((frame, index) => {
    const method = 'method' in frame ? undefined : client.methods.get((frame as { id?: unknown }).id);
    // An error to a line without an id has `"id": null` (JSON-RPC 2.0), which the schemas lack:
    // 2025-11-25 allows no id there, the older ones need one; such a frame is checked with id 0.
    const placeholder = client.revision === '2025-11-25' ? undefined : 0;
    const checked = 'error' in frame && frame.id === null ? { ...frame, id: placeholder } : frame;
    const errors = validateClientFrame(client.revision, JSON.parse(JSON.stringify(checked)), method);
    return errors.map(
      (error) => `frame ${index} (${'method' in frame ? frame.method : (method ?? 'response')}): ${error}`,
    );
  });
}

describe('a session of each client revision', () => {
  it.each(CLIENT_REVISIONS)('every frame to a %s client is valid for its revision', (revision) => {
    const session = runSession(revision);
    expect(problemsOf(session.client)).toEqual([]);
    expect(resultOf(session.init)['protocolVersion']).toBe(revision);
    // Enough of every kind went out to mean something.
    const kinds = new Set(session.client.out.map((frame) => ('method' in frame ? frame.method : 'response')));
    for (const kind of [
      'response',
      'notifications/tools/list_changed',
      'notifications/resources/updated',
      'notifications/message',
      'notifications/progress',
      'sampling/createMessage',
    ]) {
      expect(kinds, kind).toContain(kind);
    }
    if (revision >= '2025-06-18') expect(kinds).toContain('elicitation/create');
    expect(session.client.out.length).toBeGreaterThanOrEqual(20);
  });
});

/** The `_meta` client capabilities of the upstream requests of a session. */
const upstreamCapabilities = (client: ReturnType<typeof clientOf>): unknown[] => [
  ...new Set(
    client.requests.map((request) => JSON.stringify((request.params['_meta'] as JsonObject)[CAPS_KEY])),
  ),
];

describe('what each revision gets', () => {
  it('initialize is answered with the revision asked for, an unknown one with 2025-11-25', () => {
    expect(resultOf(runSession('2025-06-18').init)).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: EVERY_CAPABILITY,
      serverInfo: { name: 'rich', version: '1.0.0', title: 'Rich server' },
    });
    expect(resultOf(runSession('2024-11-05').init)).toEqual({
      protocolVersion: '2024-11-05',
      capabilities: LISTS_AND_LOGGING,
      serverInfo: { name: 'rich', version: '1.0.0' },
    });
    for (const asked of ['2026-07-28', '2024-10-07', 42]) {
      const client = clientOf('2025-11-25');
      const init = client.call('initialize', {
        protocolVersion: asked,
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      });
      expect(resultOf(init)['protocolVersion']).toBe('2025-11-25');
    }
  });

  it('the upstream is told the capabilities the client declared, without tasks', () => {
    const caps = (revision: ClientRevision): unknown[] => upstreamCapabilities(runSession(revision).client);
    expect(caps('2025-11-25')).toEqual([
      JSON.stringify({
        elicitation: { form: {}, url: {} },
        sampling: { context: {}, tools: {} },
        roots: {},
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      }),
    ]);
    expect(caps('2025-06-18')).toEqual([JSON.stringify({ elicitation: {}, sampling: {}, roots: {} })]);
    expect(caps('2025-03-26')).toEqual([JSON.stringify({ sampling: {}, roots: {} })]);
    expect(caps('2024-11-05')).toEqual([JSON.stringify({ sampling: {}, roots: {} })]);
  });

  it('lists lose icons (before 2025-11-25), titles, output schemas and _meta (before 2025-06-18), tool annotations (before 2025-03-26)', () => {
    expect(runSession('2025-06-18').lists).toEqual({
      tools: { tools: [{ ...TOOL, icons: undefined, execution: undefined }] },
      resources: { resources: [{ ...RESOURCE, icons: undefined }] },
      templates: { resourceTemplates: [{ ...TEMPLATE, icons: undefined }] },
      prompts: { prompts: [{ ...PROMPT, icons: undefined }] },
    });
    const older = runSession('2025-03-26').lists;
    expect(older.tools).toEqual({
      tools: [
        {
          name: 'weather',
          description: 'The weather of a city.',
          inputSchema: TOOL.inputSchema,
          annotations: { readOnlyHint: true },
        },
      ],
    });
    expect(older.resources).toEqual({
      resources: [
        {
          uri: NOTES,
          name: 'notes',
          mimeType: 'text/plain',
          annotations: { audience: ['user'], priority: 0.5 },
        },
      ],
    });
    expect(older.prompts).toEqual({
      prompts: [{ name: 'greet', arguments: [{ name: 'who', required: true }] }],
    });
    expect(runSession('2024-11-05').lists.tools).toEqual({
      tools: [{ name: 'weather', description: 'The weather of a city.', inputSchema: TOOL.inputSchema }],
    });
  });

  it('tool results lose structured content and resource links before 2025-06-18, audio before 2025-03-26', () => {
    const newest = runSession('2025-11-25');
    expect(newest.rich).toEqual({ content: RICH_CONTENT, structuredContent: { celsius: 21 } });
    expect(runSession('2025-06-18').rich).toEqual({
      content: [RICH_CONTENT[0], { ...LINK, icons: undefined }, AUDIO, RICH_CONTENT[3]],
      structuredContent: { celsius: 21 },
    });
    const march = runSession('2025-03-26');
    expect(march.rich).toEqual({
      content: [
        { type: 'text', text: 'sunny' },
        { type: 'text', text: 'Resource link: notes (text/plain) file:///fixture/notes.txt' },
        AUDIO,
        { type: 'resource', resource: { uri: NOTES, text: 'notes' } },
      ],
    });
    // The data of structuredContent stays as text.
    expect(march.structured).toEqual({ content: [{ type: 'text', text: '{"celsius":21}' }] });
    const first = runSession('2024-11-05');
    expect((first.rich['content'] as JsonObject[])[2]).toEqual({
      type: 'text',
      text: "Audio content (audio/wav), not shown: the client's MCP revision has no audio content.",
    });
    expect(first.prompt).toEqual({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: 'Resource link: notes (text/plain) file:///fixture/notes.txt' },
        },
        {
          role: 'user',
          content: {
            type: 'text',
            text: "Audio content (audio/wav), not shown: the client's MCP revision has no audio content.",
          },
        },
      ],
    });
    expect(first.read).toEqual({ contents: [{ uri: NOTES, text: 'notes' }] });
    // Progress messages are of 2025-03-26.
    expect(first.progress[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'p-1', progress: 1, total: 2 },
    });
    expect(march.progress[0]).toMatchObject({ params: { message: 'half way' } });
  });

  it('a 2025-06-18 form gets its titled enum as enum and enumNames, without mode and the defaults it lacks', () => {
    const session = runSession('2025-06-18');
    expect(session.form.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 'b-1',
      method: 'elicitation/create',
      params: {
        message: 'Pick a colour.',
        requestedSchema: {
          type: 'object',
          properties: {
            colour: { type: 'string', title: 'Colour', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
            note: { type: 'string' },
            loud: { type: 'boolean', default: false },
          },
          required: ['colour'],
        },
      },
    });
    expect(resultOf(session.formEnd)).toEqual({
      content: [{ type: 'text', text: '{"ask":{"action":"accept","content":{"colour":"g"}}}' }],
    });
    // The newest revision gets the form as the upstream sent it.
    expect((runSession('2025-11-25').form.at(-1) as { params: unknown }).params).toEqual(FORM.params);
  });

  it('sampling requests lose what the revision lacks', () => {
    expect((runSession('2025-06-18').sample.at(-1) as { params: unknown }).params).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }],
      maxTokens: 10,
    });
    expect((runSession('2025-11-25').sample.at(-1) as { params: unknown }).params).toEqual(SAMPLE.params);
  });

  it('an input request the client did not declare, or that its revision cannot carry, ends its request with a clear error', () => {
    const detail = (frames: Frame[]): string | undefined => errorOf(frames).data.detail;
    const june = runSession('2025-06-18');
    expect(errorOf(june.url)).toMatchObject({ code: -32603, data: { cause: 'undeclared_input_request' } });
    expect(detail(june.url)).toBe("input request 'ask': the client did not declare elicitation.url");
    expect(detail(june.multi)).toBe(
      "input request 'ask': the client speaks MCP 2025-06-18, which has no multi-select enums in forms",
    );
    const march = runSession('2025-03-26');
    expect(detail(march.form)).toBe("input request 'ask': the client did not declare elicitation.form");
    expect(detail(march.url)).toBe("input request 'ask': the client did not declare elicitation.url");
    // No frame of a revision the client lacks went out.
    expect(
      march.client.out.filter((frame) => 'method' in frame && frame.method === 'elicitation/create'),
    ).toEqual([]);
    // The newest revision relays both.
    const newest = runSession('2025-11-25');
    expect(newest.url.at(-1)).toMatchObject({ method: 'elicitation/create', params: { mode: 'url' } });
    expect(newest.multi.at(-1)).toMatchObject({ method: 'elicitation/create' });
  });

  it('a JSON-RPC batch is refused as a whole, with one error that says so', () => {
    for (const revision of CLIENT_REVISIONS) {
      expect(runSession(revision).batch).toEqual([
        {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message: 'The message is not a valid JSON-RPC 2.0 request.',
            data: {
              cause: 'invalid_request_shape',
              detail: 'a JSON-RPC batch: the bridge takes one message per line',
            },
          },
        },
      ]);
    }
  });
});

describe('what a client declares, it gets (docs/revisions.md#revisions-declared)', () => {
  it("Codex's 2025-06-18 initialize with elicitation.url: the upstream is told URL mode and a URL question reaches the client", () => {
    const client = clientOf('2025-06-18');
    const init = client.call('initialize', CODEX_INITIALIZE);
    expect(resultOf(init)['protocolVersion']).toBe('2025-06-18');
    client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const url = client.call('tools/call', { name: 'ask_url', arguments: {} });
    expect(url.at(-1)).toEqual(
      urlQuestion('b-1', {
        message: 'Sign in.',
        url: 'https://example.com/sign-in',
        elicitationId: 'elicitation-1',
      }),
    );
    const end = client.answerLast({ action: 'accept' });
    expect(resultOf(end)).toEqual({
      content: [{ type: 'text', text: '{"ask":{"action":"accept"}}' }],
    });
    expect(upstreamCapabilities(client)).toEqual([JSON.stringify({ elicitation: { form: {}, url: {} } })]);
  });

  it('an older client that declares sampling.tools and elicitation gets sampling and forms in the shape that defines them', () => {
    const session = runSession('2025-03-26', {
      sampling: { tools: {} },
      elicitation: {},
    });
    expect(upstreamCapabilities(session.client)).toEqual([
      JSON.stringify({ elicitation: {}, sampling: { tools: {} } }),
    ]);
    expect(session.form.at(-1)).toMatchObject({
      method: 'elicitation/create',
      params: {
        message: 'Pick a colour.',
        requestedSchema: {
          properties: {
            colour: { type: 'string', title: 'Colour', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
          },
        },
      },
    });
    expect(resultOf(session.formEnd)).toEqual({
      content: [{ type: 'text', text: '{"ask":{"action":"accept","content":{"colour":"g"}}}' }],
    });
  });
});
