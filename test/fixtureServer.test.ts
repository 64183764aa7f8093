/**
 * The fixture upstream server, spoken to in raw 2026-07-28 JSON-RPC over pipes. Needs the build
 * (`npx tsc -p tsconfig.build.json`): it runs dist/test/fixtures/fixtureServer.js.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllPeers, notification, responseTo, spawnPeer } from './helpers/rawPeer.js';
import type { Frame, RawPeer } from './helpers/rawPeer.js';

const FIXTURE = resolve('dist/test/fixtures/fixtureServer.js');
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: { form: {}, url: {} },
    sampling: {},
    roots: {},
  },
  'io.modelcontextprotocol/clientInfo': { name: 'fixture-test', version: '0.0.0' },
};
const SERVER_INFO = { name: 'bridge-fixture-server', version: '0.0.0' };
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const TOOLS = [
  'echo', 'add', 'slow', 'progress', 'bare_array', 'structured', 'array_output', 'show', 'log', 'meta_echo',
  'ask_form', 'ask_url', 'ask_url_twice', 'ask_bad_url', 'confirm', 'two_rounds', 'never_stops', 'many_inputs',
  'refused_state', 'ask_sample', 'sample_tools', 'ask_roots', 'multi', 'toggled', 'toggle', 'touch', 'add_tool',
  'drop_listen', 'crash', 'shutdown',
]; // prettier-ignore

let nextId = 1;
const request = (method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method,
  params: { ...params, _meta: META },
});

/** Sends a request and resolves with its response frame. */
async function exchange(peer: RawPeer, method: string, params?: Record<string, unknown>): Promise<Frame> {
  const frame = request(method, params);
  peer.send(frame);
  return peer.nextFrame(responseTo(frame.id));
}

interface ToolResult {
  resultType: string;
  content: { type: string; text: string }[];
  inputRequests: Record<
    string,
    { method: string; params: { message: string; requestedSchema: { properties: object } } }
  >;
  requestState?: string;
  _meta?: Record<string, unknown>;
}
interface ListedTool {
  name: string;
  inputSchema: { properties: Record<string, Record<string, unknown>> };
  outputSchema?: unknown;
  _meta?: unknown;
}

/** The result member of a response, typed as the test expects it to be. */
const result = <T = ToolResult>(frame: Frame): T => frame.result as T;
const callText = async (peer: RawPeer, name: string, params: Record<string, unknown> = {}): Promise<string> =>
  result(await exchange(peer, 'tools/call', { name, arguments: {}, ...params })).content[0]!.text;
const startFixture = (...args: string[]): RawPeer => spawnPeer(process.execPath, [FIXTURE, ...args]);

afterAll(killAllPeers);

describe('the fixture server on stdio', () => {
  let peer: RawPeer;
  beforeAll(() => {
    peer = startFixture();
  });

  it('server/discover gives the identity, the instructions and every capability', async () => {
    expect(result(await exchange(peer, 'server/discover'))).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      instructions: 'The upstream server of the mcp-bridge-sdk tests.',
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        logging: {},
        completions: {},
      },
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
  });

  it('tools/list has every tool of the catalogue, with their odd schemas intact', async () => {
    const { tools } = result<{ tools: ListedTool[] }>(await exchange(peer, 'tools/list'));
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('bare_array')?.inputSchema.properties.values).not.toHaveProperty('items');
    expect(byName.get('bare_array')?.inputSchema.properties.pair?.items).toBe(false);
    expect(byName.get('array_output')?.outputSchema).toEqual({ type: 'array' });
    expect(byName.get('show')?._meta).toEqual({ ui: { resourceUri: 'ui://fixture/view' } });
  });

  it('echo returns its text and add returns the sum as text', async () => {
    expect(await callText(peer, 'echo', { arguments: { text: 'hello' } })).toBe('hello');
    expect(await callText(peer, 'add', { arguments: { a: 2, b: 3 } })).toBe('5');
  });

  it('array_output sends array structured content and no text block', async () => {
    const answer = result(await exchange(peer, 'tools/call', { name: 'array_output', arguments: {} }));
    expect(answer).toMatchObject({ content: [], structuredContent: [1, 2, 3] });
  });

  it('ask_form answers input_required, and the retry with the answers completes the call', async () => {
    const first = result(await exchange(peer, 'tools/call', { name: 'ask_form', arguments: {} }));
    expect(first.resultType).toBe('input_required');
    const profile = first.inputRequests.profile!;
    expect(profile.method).toBe('elicitation/create');
    expect(profile.params.message).toBe('Tell us about you.');
    expect(Object.keys(profile.params.requestedSchema.properties)).toEqual([
      'name',
      'age',
      'subscribe',
      'color',
    ]);

    const accept = { profile: { action: 'accept', content: { name: 'Ada', age: 36 } } };
    expect(await callText(peer, 'ask_form', { inputResponses: accept })).toBe(
      'form: accept {"name":"Ada","age":36}',
    );
    const decline = { profile: { action: 'decline' } };
    expect(await callText(peer, 'ask_form', { inputResponses: decline })).toBe('form: decline');
  });

  it('a refused requestState gets -32602 with the reason invalid_request_state', async () => {
    const first = result(await exchange(peer, 'tools/call', { name: 'refused_state', arguments: {} }));
    const retry = await exchange(peer, 'tools/call', {
      name: 'refused_state',
      arguments: {},
      inputResponses: { ok: { action: 'accept', content: { ok: 'yes' } } },
      requestState: first.requestState,
    });
    expect(retry.error).toEqual({
      code: -32602,
      message: 'Invalid or expired requestState',
      data: { reason: 'invalid_request_state' },
    });
  });

  it('a listen stream gets each real toggle as a list change tagged with its id, before the result', async () => {
    const listen = request('subscriptions/listen', { notifications: { toolsListChanged: true } });
    peer.send(listen);
    const ack = await peer.nextFrame(notification('notifications/subscriptions/acknowledged'));
    expect(ack.params).toEqual({
      notifications: { toolsListChanged: true },
      _meta: { [SUBSCRIPTION_ID]: listen.id },
    });

    const before = peer.lines.length;
    expect(await callText(peer, 'toggle', { arguments: { enabled: false } })).toBe('tool toggled: disabled');
    expect(await callText(peer, 'toggle', { arguments: { enabled: false } })).toBe('tool toggled: disabled');
    expect(await callText(peer, 'toggle', { arguments: { enabled: true } })).toBe('tool toggled: enabled');
    const written = peer.lines.slice(before).map((line) => JSON.parse(line) as Frame);
    const order = written.map((frame) => (frame.method === undefined ? 'result' : 'change'));
    expect(order).toEqual(['change', 'result', 'result', 'change', 'result']);
    const change = written[0];
    expect(change).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: listen.id } },
    });
  });

  it('drop_listen ends each open stream with its listen result', async () => {
    expect(await callText(peer, 'drop_listen')).toBe('ended 1 listen streams');
    const end = await peer.nextFrame(
      (frame) => 'result' in frame && result(frame)._meta?.[SUBSCRIPTION_ID] !== undefined,
    );
    expect(result(end)).toEqual({
      resultType: 'complete',
      _meta: { [SUBSCRIPTION_ID]: end.id, 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
  });

  it('a legacy initialize gets the unsupported-version error', async () => {
    const init = {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'legacy', version: '1' },
    };
    peer.send({ jsonrpc: '2.0', id: 'legacy', method: 'initialize', params: init });
    const answer = await peer.nextFrame(responseTo('legacy'));
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
    const { tools } = result<{ tools: ListedTool[] }>(await exchange(peer, 'tools/list'));
    const names = tools.map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith('tool_'))).toEqual(['tool_0', 'tool_1', 'tool_2']);
    const refused = await exchange(peer, 'subscriptions/listen', {
      notifications: { toolsListChanged: true },
    });
    expect(refused.error).toEqual({ code: -32603, message: 'This server refuses listen streams.' });
    peer.kill();
  });

  it('--no-list-changed declares no list changes and no subscriptions', async () => {
    const peer = startFixture('--no-list-changed');
    expect(
      result<{ capabilities: unknown }>(await exchange(peer, 'server/discover')).capabilities,
    ).toMatchObject({
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
    const listen = request('subscriptions/listen', { notifications: { promptsListChanged: true } });
    peer.send(listen);
    await peer.nextFrame(notification('notifications/subscriptions/acknowledged'));
    expect(await callText(peer, 'shutdown', { arguments: { after_ms: 20 } })).toBe(
      'the server stops in 20 ms',
    );
    expect(result(await peer.nextFrame(responseTo(listen.id))).resultType).toBe('complete');
    expect((await peer.exit).code).toBe(0);
  });
});
