/**
 * The fixture upstream server, spoken to in raw 2026-07-28 JSON-RPC over pipes. Needs the build
 * (`npx tsc -p tsconfig.build.json`): it runs dist/test/fixtures/fixtureServer.js.
 */
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  exchange,
  killAllPeers,
  modernRequest,
  notification,
  responseTo,
  spawnPeer,
} from './helpers/rawPeer.js';
import type { Frame, RawPeer } from './helpers/rawPeer.js';
import { waitFor } from './helpers/waitFor.js';

const FIXTURE = resolve('dist/test/fixtures/fixtureServer.js');
const CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };
const SERVER_INFO = { name: 'bridge-fixture-server', version: '0.0.0' };
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const LISTS = { tools: { listChanged: true }, prompts: { listChanged: true } };
const TOOLS = [
  'echo', 'add', 'slow', 'progress', 'bare_array', 'structured', 'array_output', 'show', 'log', 'meta_echo',
  'ask_form', 'ask_url', 'ask_url_twice', 'ask_bad_url', 'confirm', 'two_rounds', 'ask_traced', 'never_stops', 'many_inputs',
  'refused_state', 'ask_named', 'ask_sample', 'sample_tools', 'ask_roots', 'multi', 'toggled', 'toggle', 'touch', 'add_tool',
  'drop_listen', 'crash', 'shutdown',
]; // prettier-ignore

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const sampled = { role: 'assistant', content: { type: 'text', text: 'Hi.' }, model: 'm' };
const roots = (...uris: string[]) => ({ roots: uris.map((uri) => ({ uri })) });
const seventeen = Object.fromEntries(
  Array.from({ length: 17 }, (_, i) => [`q${i + 1}`, { action: 'decline' }]),
);
/** One round trip per input tool: the first call asks for these keys, the retry answers them. */
const ROUND_TRIPS: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
  ['ask_url', {}, { auth: { action: 'accept' } }, 'url: accept'],
  ['ask_url_twice', { complete: true }, { auth: { action: 'accept' } }, 'url twice: accept'],
  ['ask_bad_url', {}, { file: { action: 'decline' } }, 'url: decline'],
  ['confirm', {}, { confirm: { action: 'cancel' } }, 'confirmed: cancel'],
  ['ask_sample', {}, { model: sampled }, 'model: Hi.'],
  ['ask_roots', {}, { roots: roots('file:///a', 'file:///b') }, 'roots: file:///a\nfile:///b'],
  ['multi', {}, { name: accept({ name: 'Ada' }), roots: roots('file:///a') }, 'name: Ada (accept); roots: 1'],
  ['many_inputs', {}, seventeen, 'many inputs: 17 answers'],
  ['ask_named', { name: 'Ada' }, { answer: accept({ answer: 'yes' }) }, 'named Ada: yes'],
];

type InputRequest = { method: string; params: { message: string; requestedSchema: { properties: object } } };
type ToolResult = {
  resultType: string;
  content: { text: string }[];
  inputRequests: Record<string, InputRequest>;
};
type ListedTool = {
  name: string;
  inputSchema: { properties: Record<string, object> };
  [key: string]: unknown;
};

const request = (method: string, params?: Record<string, unknown>, meta?: Record<string, unknown>) =>
  modernRequest(method, params, { 'io.modelcontextprotocol/clientCapabilities': CAPABILITIES, ...meta });
/** Sends a request and resolves with the result member of its response, typed as the test expects. */
const ask = async <T = ToolResult & { requestState?: string }>(
  peer: RawPeer,
  method: string,
  params?: object,
) => (await exchange(peer, request(method, params as Record<string, unknown>))).result as T;
const call = (peer: RawPeer, name: string, params: object = {}) =>
  ask(peer, 'tools/call', { name, arguments: {}, ...params });
const callText = async (peer: RawPeer, name: string, params?: object): Promise<string> =>
  (await call(peer, name, params)).content[0]!.text;
const startFixture = (...args: string[]): RawPeer => spawnPeer(process.execPath, [FIXTURE, ...args]);
const result = <T = Record<string, unknown>>(frame: Frame): T => frame.result as T;
/** Opens a listen stream and resolves with its request once the server acknowledged it. */
async function listen(peer: RawPeer, notifications: Record<string, unknown>) {
  const frame = request('subscriptions/listen', { notifications });
  peer.send(frame);
  const ack = await peer.nextFrame(notification('notifications/subscriptions/acknowledged'));
  expect(ack.params).toEqual({ notifications, _meta: { [SUBSCRIPTION_ID]: frame.id } });
  return frame;
}
/** What the peer wrote since line `from`: `result` for each response, else the method. */
const writtenSince = (peer: RawPeer, from: number): string[] =>
  peer.lines.slice(from).map((line) => (JSON.parse(line) as { method?: string }).method ?? 'result');

afterAll(killAllPeers);

describe('the fixture server on stdio', () => {
  // A process per test: each test states what it needs (a listen stream, a toggled tool), so the
  // file passes in any order (docs/testing.md#testing-infrastructure).
  let peer: RawPeer;
  beforeEach(() => {
    peer = startFixture();
  });
  afterEach(() => peer.kill());

  it('server/discover gives the identity, the instructions and every capability', async () => {
    expect(await ask(peer, 'server/discover')).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      instructions: 'The upstream server of the mcp-bridge-sdk tests.',
      capabilities: {
        ...LISTS,
        resources: { listChanged: true, subscribe: true },
        logging: {},
        completions: {},
      },
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
  });

  it('tools/list has every tool of the catalogue, with their odd schemas intact', async () => {
    const { tools } = await ask<{ tools: ListedTool[] }>(peer, 'tools/list');
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const bare = byName.get('bare_array')?.inputSchema.properties;
    expect(bare?.values).toEqual({ type: 'array', description: 'An array without items.' });
    expect(bare?.pair).toMatchObject({ type: 'array', items: false });
    expect(byName.get('array_output')?.outputSchema).toEqual({ type: 'array' });
    expect(byName.get('show')?._meta).toEqual({ ui: { resourceUri: 'ui://fixture/view' } });
  });

  it('echo returns its text and add returns the sum as text', async () => {
    expect(await callText(peer, 'echo', { arguments: { text: 'hello' } })).toBe('hello');
    expect(await callText(peer, 'add', { arguments: { a: 2, b: 3 } })).toBe('5');
  });

  it('array_output sends array structured content and no text block', async () => {
    expect(await call(peer, 'array_output')).toMatchObject({ content: [], structuredContent: [1, 2, 3] });
  });

  it('ask_form answers input_required, and the retry with the answers completes the call', async () => {
    const first = await call(peer, 'ask_form');
    expect(first.resultType).toBe('input_required');
    const profile = first.inputRequests.profile!;
    expect(profile.method).toBe('elicitation/create');
    expect(profile.params.message).toBe('Tell us about you.');
    expect(Object.keys(profile.params.requestedSchema.properties).join()).toBe('name,age,subscribe,color');
    const accepted = await callText(peer, 'ask_form', {
      inputResponses: { profile: accept({ name: 'Ada' }) },
    });
    expect(accepted).toBe('form: accept {"name":"Ada"}');
    const decline = { profile: { action: 'decline' } };
    expect(await callText(peer, 'ask_form', { inputResponses: decline })).toBe('form: decline');
  });

  it.each(ROUND_TRIPS)(
    '%s asks for its inputs, and the retry with the answers completes',
    async (name, args, answers, want) => {
      const first = await call(peer, name, { arguments: args });
      expect(first.resultType).toBe('input_required');
      expect(Object.keys(first.inputRequests).sort()).toEqual(Object.keys(answers).sort());
      const state = first.requestState === undefined ? {} : { requestState: first.requestState };
      expect(await callText(peer, name, { arguments: args, inputResponses: answers, ...state })).toBe(want);
    },
  );

  it('two_rounds carries the first answer in requestState to the second round', async () => {
    expect((await call(peer, 'two_rounds')).requestState).toBeUndefined();
    const second = await call(peer, 'two_rounds', { inputResponses: { first: accept({ first: 'one' }) } });
    expect(Object.keys(second.inputRequests)).toEqual(['second']);
    const { requestState } = second;
    const retry = { inputResponses: { second: accept({ second: 'two' }) }, requestState };
    expect(await callText(peer, 'two_rounds', retry)).toBe('two rounds: one, two');
  });

  it('never_stops asks a new question in every round', async () => {
    let state: string | undefined;
    const keys: string[] = [];
    for (let round = 0; round < 3; round++) {
      const answer = await call(peer, 'never_stops', state === undefined ? {} : { requestState: state });
      keys.push(...Object.keys(answer.inputRequests));
      state = answer.requestState;
    }
    expect(keys).toEqual(['question_1', 'question_2', 'question_3']);
  });

  it('an input request that the request did not declare a capability for gets -32021', async () => {
    const frame = modernRequest('tools/call', { name: 'ask_roots', arguments: {} });
    expect((await exchange(peer, frame)).error).toMatchObject({ code: -32021 });
  });

  it('a cancellation stops slow without a response', async () => {
    const slow = request('tools/call', { name: 'slow', arguments: { ms: 60_000 } });
    peer.send(slow);
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: slow.id } });
    await waitFor(() => peer.stderr.join('\n').includes('bridge-fixture-server: slow: canceled after'), {
      what: 'the line of the canceled slow call',
    });
    expect(await callText(peer, 'echo', { arguments: { text: 'after' } })).toBe('after');
    expect(peer.lines.some((line) => (JSON.parse(line) as Frame).id === slow.id)).toBe(false);
  });

  it('touch sends resources/updated to the stream that subscribed to the URI, before the result', async () => {
    const notes = 'file:///fixture/notes.txt';
    const stream = await listen(peer, { resourceSubscriptions: [notes] });
    const before = peer.lines.length;
    await callText(peer, 'touch', { arguments: { uri: 'file:///fixture/readme.txt' } });
    expect(await callText(peer, 'touch', { arguments: { uri: notes } })).toBe(`touched ${notes}`);
    expect(writtenSince(peer, before)).toEqual(['result', 'notifications/resources/updated', 'result']);
    const update = JSON.parse(peer.lines[before + 1]!) as Frame;
    expect(update.params).toEqual({ uri: notes, _meta: { [SUBSCRIPTION_ID]: stream.id } });
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: stream.id } });
  });

  it('a refused requestState gets -32602 with the reason invalid_request_state', async () => {
    const { requestState } = await call(peer, 'refused_state');
    const retry = request('tools/call', { name: 'refused_state', arguments: {}, requestState });
    const data = { reason: 'invalid_request_state' };
    const refusal = { code: -32602, message: 'Invalid or expired requestState', data };
    expect((await exchange(peer, retry)).error).toEqual(refusal);
  });

  it('a listen stream gets each real toggle as a list change tagged with its id, before the result', async () => {
    const stream = await listen(peer, { toolsListChanged: true });
    const before = peer.lines.length;
    expect(await callText(peer, 'toggle', { arguments: { enabled: false } })).toBe('tool toggled: disabled');
    expect(await callText(peer, 'toggle', { arguments: { enabled: false } })).toBe('tool toggled: disabled');
    expect(await callText(peer, 'toggle', { arguments: { enabled: true } })).toBe('tool toggled: enabled');
    const change = 'notifications/tools/list_changed';
    expect(writtenSince(peer, before)).toEqual([change, 'result', 'result', change, 'result']);
    const tagged = { method: change, params: { _meta: { [SUBSCRIPTION_ID]: stream.id } } };
    expect(JSON.parse(peer.lines[before]!)).toEqual({ jsonrpc: '2.0', ...tagged });
  });

  it('drop_listen ends each open stream with its listen result', async () => {
    await listen(peer, { toolsListChanged: true });
    expect(await callText(peer, 'drop_listen')).toBe('ended 1 listen streams');
    const end = await peer.nextFrame((frame) => JSON.stringify(frame.result ?? '').includes(SUBSCRIPTION_ID));
    expect(result(end)).toEqual({
      resultType: 'complete',
      _meta: { [SUBSCRIPTION_ID]: end.id, 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
  });

  it('a legacy initialize gets the unsupported-version error', async () => {
    const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } };
    const answer = await exchange(peer, { jsonrpc: '2.0', id: 'legacy', method: 'initialize', params: init });
    expect(answer.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } });
  });

  it('the end of stdin ends the process with code 0', async () => {
    peer.closeStdin();
    expect(await peer.exit).toEqual({ code: 0, signal: null });
  });
});

describe.concurrent('the flags and process tools of the fixture server', () => {
  it('--many-tools N adds tool_0 to tool_N-1, and --refuse-listen refuses listen streams', async () => {
    const peer = startFixture('--many-tools', '3', '--refuse-listen');
    const { tools } = await ask<{ tools: ListedTool[] }>(peer, 'tools/list');
    const names = tools.map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith('tool_'))).toEqual(['tool_0', 'tool_1', 'tool_2']);
    const listenFrame = request('subscriptions/listen', { notifications: { toolsListChanged: true } });
    const refused = await exchange(peer, listenFrame);
    expect(refused.error).toEqual({ code: -32603, message: 'This server refuses listen streams.' });
    peer.kill();
  });

  it('--no-list-changed declares no list changes and no subscriptions', async () => {
    const peer = startFixture('--no-list-changed');
    expect((await ask<{ capabilities: unknown }>(peer, 'server/discover')).capabilities).toMatchObject({
      tools: { listChanged: false },
      prompts: { listChanged: false },
      resources: { listChanged: false, subscribe: false },
    });
    peer.kill();
  });

  it('an unknown argument exits with code 2', async () => {
    const peer = startFixture('--no-such-flag');
    expect((await peer.exit).code).toBe(2);
    expect(peer.stderr.join('\n')).toMatch(/^bridge-fixture-server: /);
  });

  it('--close-stdout closes stdout while the process keeps running', async () => {
    const peer = startFixture('--close-stdout');
    await peer.stdoutClosed;
    expect(peer.child.exitCode).toBeNull();
    peer.kill();
  });

  it('crash with after_ms answers, then exits with code 3', async () => {
    const peer = startFixture();
    expect(await callText(peer, 'crash', { arguments: { after_ms: 20 } })).toBe('the server stops in 20 ms');
    expect((await peer.exit).code).toBe(3);
  });

  it('shutdown ends the listen streams, then exits with code 0', async () => {
    const peer = startFixture();
    const stream = await listen(peer, { promptsListChanged: true });
    expect(await callText(peer, 'shutdown', { arguments: { after_ms: 20 } })).toBe(
      'the server stops in 20 ms',
    );
    expect(result(await peer.nextFrame(responseTo(stream.id))).resultType).toBe('complete');
    expect((await peer.exit).code).toBe(0);
  });
});
