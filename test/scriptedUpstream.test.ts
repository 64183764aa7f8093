/**
 * The scripted upstream: one short check per mode that it misbehaves as its name says. Needs the
 * build (`npx tsc -p tsconfig.build.json`): it runs dist/test/fixtures/scriptedUpstream.js.
 */
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import {
  killAllPeers,
  modernRequest,
  notification,
  parseFrame,
  responseTo,
  spawnPeer,
} from './helpers/rawPeer.js';
import type { Frame, RawPeer } from './helpers/rawPeer.js';
import { waitFor } from './helpers/waitFor.js';

const SCRIPTED = resolve('dist/test/fixtures/scriptedUpstream.js');
/** A 2026-07-28 request with a chosen id, so that the tests can name the answers they expect. */
const request = (id: number | string, method: string, params?: Record<string, unknown>) => ({
  ...modernRequest(method, params),
  id,
});
const DISCOVER = request('d', 'server/discover');
const CALL = request('c', 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
const LIST = request('l', 'tools/list');
const DISCOVER_RESULT = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: 'private',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted', version: '0.0.0' } },
};

/** Starts a mode; the process dies with the test (the context's hook: the tests run concurrently). */
function start(context: TestContext, mode: string): RawPeer {
  const peer = spawnPeer(process.execPath, [SCRIPTED, '--mode', mode]);
  context.onTestFinished(() => peer.kill());
  return peer;
}

/** Sends the requests in order and resolves with the response to the last one. */
async function lastAnswer(peer: RawPeer, ...frames: (Frame & { id: number | string })[]): Promise<Frame> {
  frames.forEach((frame) => peer.send(frame));
  return peer.nextFrame(responseTo(frames.at(-1)!.id));
}

/** Ids that got a response so far. Requests are answered in order, so after the last answer this is final. */
const answered = (peer: RawPeer): unknown[] =>
  peer.lines
    .map(parseFrame)
    .flatMap((frame) => (frame && ('result' in frame || 'error' in frame) ? [frame.id] : []));

afterAll(killAllPeers);

describe.concurrent('the scripted upstream', () => {
  it('garbage answers discover cleanly, then writes a garbage line before each answer', async (context) => {
    const peer = start(context, 'garbage');
    expect((await lastAnswer(peer, DISCOVER)).result).toEqual(DISCOVER_RESULT);
    expect((await lastAnswer(peer, CALL)).result).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    expect(peer.lines.slice(1)).toEqual(['this line is not JSON', expect.stringContaining('"id":"c"')]);
  });

  it('unknown-result-type answers tools/call with resultType "later"', async (context) => {
    const peer = start(context, 'unknown-result-type');
    expect((await lastAnswer(peer, DISCOVER, CALL)).result).toEqual({ resultType: 'later' });
  });

  it('no-answer never answers tools/call but answers the rest', async (context) => {
    const peer = start(context, 'no-answer');
    await lastAnswer(peer, DISCOVER, CALL, LIST);
    expect(answered(peer)).toEqual(['d', 'l']);
  });

  it('no-discover never answers server/discover but answers the rest', async (context) => {
    const peer = start(context, 'no-discover');
    await lastAnswer(peer, DISCOVER, LIST);
    expect(answered(peer)).toEqual(['l']);
  });

  it('exit-mid-request exits with code 3 on tools/call, without an answer', async (context) => {
    const peer = start(context, 'exit-mid-request');
    await lastAnswer(peer, DISCOVER);
    peer.send(CALL);
    expect((await peer.exit).code).toBe(3);
    expect(answered(peer)).toEqual(['d']);
  });

  it('exit-after-discover answers server/discover, then exits with code 3', async (context) => {
    const peer = start(context, 'exit-after-discover');
    expect((await lastAnswer(peer, DISCOVER)).result).toEqual(DISCOVER_RESULT);
    expect((await peer.exit).code).toBe(3);
  });

  it('close-stdout closes stdout while the process keeps running', async (context) => {
    const peer = start(context, 'close-stdout');
    await peer.stdoutClosed;
    expect(peer.child.exitCode).toBeNull();
  });

  it('legacy-only refuses server/discover with -32601 and answers initialize', async (context) => {
    const peer = start(context, 'legacy-only');
    expect((await lastAnswer(peer, DISCOVER)).error).toEqual({ code: -32601, message: 'Method not found' });
    const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } };
    const answer = await lastAnswer(peer, { jsonrpc: '2.0', id: 'i', method: 'initialize', params: init });
    expect(answer.result).toMatchObject({ protocolVersion: '2025-11-25', capabilities: { tools: {} } });
  });

  it('echo lists one tool echo and echoes its text in a complete result', async (context) => {
    const peer = start(context, 'echo');
    const listed = (await lastAnswer(peer, DISCOVER, LIST)).result as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name)).toEqual(['echo']);
    const quoted = request(7, 'tools/call', { name: 'echo', arguments: { text: 'a "quoted" text' } });
    expect(await lastAnswer(peer, quoted)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { resultType: 'complete', content: [{ type: 'text', text: 'a "quoted" text' }] },
    });
  });

  it('refuse-listen declares tool list changes but refuses subscriptions/listen', async (context) => {
    const peer = start(context, 'refuse-listen');
    const discovered = (await lastAnswer(peer, DISCOVER)).result as { capabilities: unknown };
    expect(discovered.capabilities).toEqual({ tools: { listChanged: true } });
    const listen = request('s', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    expect((await lastAnswer(peer, listen)).error).toEqual({ code: -32601, message: 'Method not found' });
  });

  it('list-changes logs each discover and acknowledgment, and the tool change tells every stream of a list change before its answer', async (context) => {
    const peer = start(context, 'list-changes');
    const discovered = (await lastAnswer(peer, DISCOVER)).result as { capabilities: unknown };
    expect(discovered.capabilities).toEqual({ tools: { listChanged: true } });
    peer.send(request('s', 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    await peer.nextFrame(notification('notifications/subscriptions/acknowledged'));
    const change = request('x', 'tools/call', { name: 'change', arguments: {} });
    expect((await lastAnswer(peer, change)).result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'changed' }],
    });
    expect(peer.lines.slice(-2).map(parseFrame)[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 's' } },
    });
    // Stderr is another pipe: its lines may come after the answer on stdout.
    await waitFor(() => peer.stderr.length === 4, { what: 'the four stderr lines' });
    expect(peer.stderr).toEqual([
      'scripted-upstream: mode list-changes',
      `scripted-upstream: pid ${String(peer.child.pid)}`,
      'scripted-upstream: server/discover 1',
      'scripted-upstream: subscriptions/listen 1 acknowledged',
    ]);
  });

  it('the base server acknowledges a listen stream with its id', async (context) => {
    const peer = start(context, 'no-answer');
    peer.send(request('s', 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    const ack = await peer.nextFrame(notification('notifications/subscriptions/acknowledged'));
    expect(ack.params).toEqual({
      notifications: { toolsListChanged: true },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 's' },
    });
  });

  it('flood writes 10000 log notifications after the discover answer', async (context) => {
    const peer = start(context, 'flood');
    await lastAnswer(peer, DISCOVER);
    await peer.nextFrame(
      (frame) => (frame.params as { data?: unknown } | undefined)?.data === 'message 10000 of 10000',
    );
    expect(peer.lines).toHaveLength(10_001);
  });

  it('bad-discover answers server/discover with a result that is not an object', async (context) => {
    const peer = start(context, 'bad-discover');
    expect((await lastAnswer(peer, DISCOVER)).result).toBe('not an object');
  });

  it('exit-on-discover exits with code 3 on server/discover, without an answer', async (context) => {
    const peer = start(context, 'exit-on-discover');
    peer.send(DISCOVER);
    expect((await peer.exit).code).toBe(3);
    expect(answered(peer)).toEqual([]);
  });

  it('discover-once answers the first server/discover and refuses every later one with -32601', async (context) => {
    const peer = start(context, 'discover-once');
    expect((await lastAnswer(peer, DISCOVER)).result).toEqual(DISCOVER_RESULT);
    const again = { ...DISCOVER, id: 'again' };
    expect((await lastAnswer(peer, again)).error).toEqual({ code: -32601, message: 'Method not found' });
    expect((await lastAnswer(peer, { ...DISCOVER, id: 'third' })).error).toEqual({
      code: -32601,
      message: 'Method not found',
    });
  });

  it('no-server-info answers server/discover without _meta', async (context) => {
    const peer = start(context, 'no-server-info');
    const { _meta, ...rest } = DISCOVER_RESULT;
    expect(_meta).toBeDefined();
    expect((await lastAnswer(peer, DISCOVER)).result).toEqual(rest);
  });

  it('url-elicitation-error answers tools/call with -32042 and the URL in data', async (context) => {
    const peer = start(context, 'url-elicitation-error');
    const { error } = await lastAnswer(peer, DISCOVER, CALL);
    expect(error).toMatchObject({ code: -32042, data: { elicitations: [{ mode: 'url' }] } });
  });

  it('error-with-data answers tools/call with -32002 and data', async (context) => {
    const peer = start(context, 'error-with-data');
    const { error } = await lastAnswer(peer, DISCOVER, CALL);
    expect(error).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'file:///missing.txt', hint: 'kept as it is' },
    });
  });

  it('paged lists 29 tools in pages of 4, and the last page has a null nextCursor', async (context) => {
    const peer = start(context, 'paged');
    await lastAnswer(peer, DISCOVER);
    const first = (await lastAnswer(peer, LIST)).result as { tools: unknown[]; nextCursor: unknown };
    expect(first).toMatchObject({ nextCursor: '4', tools: { length: 4 } });
    const last = (await lastAnswer(peer, request('last', 'tools/list', { cursor: '28' }))).result;
    expect(last).toEqual({
      resultType: 'complete',
      tools: [{ name: 'tool_28', inputSchema: { type: 'object' } }],
      nextCursor: null,
    });
  });

  it('deep-schema lists one tool whose input schema nests 80 levels of not', async (context) => {
    const peer = start(context, 'deep-schema');
    const listed = (await lastAnswer(peer, DISCOVER, LIST)).result as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name)).toEqual(['deep']);
    expect(JSON.stringify(listed.tools[0]).match(/"not"/g)).toHaveLength(80);
  });

  it('an unknown mode exits with code 2', async (context) => {
    const peer = start(context, 'no-such-mode');
    expect((await peer.exit).code).toBe(2);
    expect(peer.stderr[0]).toMatch(/^scripted-upstream: --mode needs one of: garbage, /);
  });
});
