/**
 * The URL form sends the headers of the Streamable HTTP transport 2026-07-28 with every request
 * (docs/http-upstream.md#http-request-headers, docs/http-upstream.md#http-headers), through the real executable.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { killAllPeers } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { FixtureRequest, HttpFixture } from '../fixtures/httpFixture.js';
import { bridgeEnv, call, callTool, endAndExit, handshake, leaks, startUrlBridge } from './httpSupport.js';

const KEY = 'SECRET-k7-header-env';
let fixture: HttpFixture | undefined;

afterEach(async () => {
  await killAllPeers();
  await fixture?.close();
  fixture = undefined;
});

const TRANSPORT = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
};

/** The headers of the first request of `method` that the fixture received. */
function headersOf(method: string): FixtureRequest['headers'] {
  const request = fixture!.received.find((item) => item.method === method);
  expect(request, `a ${method} request`).toBeDefined();
  return request!.headers;
}

async function start(): Promise<RawPeer> {
  fixture = await startHttpFixture();
  const peer = startUrlBridge(
    fixture.url,
    ['--header', 'X-Team: blue', '--header-env', 'X-Api-Key=FIXTURE_KEY'],
    bridgeEnv({ FIXTURE_KEY: KEY }),
  );
  const init = await handshake(peer);
  expect(init).toHaveProperty('result.serverInfo.name', 'bridge-fixture-server');
  return peer;
}

describe('request headers of the URL form', () => {
  it('every method sends MCP-Protocol-Version, Mcp-Method, Accept, Content-Type and the static headers, and no session id', async () => {
    const peer = await start();
    const results = [
      await call(peer, 'tools/list'),
      await callTool(peer, 'echo', { text: 'hi' }),
      await call(peer, 'prompts/list'),
      await call(peer, 'prompts/get', { name: 'greet', arguments: { name: 'Ada' } }),
      await call(peer, 'resources/list'),
      await call(peer, 'resources/templates/list'),
      await call(peer, 'resources/read', { uri: 'file:///fixture/notes.txt' }),
      await call(peer, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'name', value: 'A' },
      }),
      await call(peer, 'ping'),
    ];
    for (const frame of results) expect(frame).toHaveProperty('result');
    await waitFor(() => fixture!.received.some((request) => request.method === 'subscriptions/listen'));

    const methods = [
      'server/discover',
      'subscriptions/listen',
      'tools/list',
      'tools/call',
      'prompts/list',
      'prompts/get',
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'completion/complete',
    ];
    const names: Record<string, string> = {
      'tools/call': 'echo',
      'prompts/get': 'greet',
      'resources/read': 'file:///fixture/notes.txt',
    };
    for (const method of methods) {
      const headers = headersOf(method);
      expect(headers, method).toMatchObject({
        ...TRANSPORT,
        'mcp-method': method,
        'x-team': 'blue',
        'x-api-key': KEY,
      });
      expect(headers['mcp-name'], method).toBe(names[method]);
      expect(Object.keys(headers).filter((name) => name.startsWith('mcp-param-'))).toEqual([]);
      for (const absent of ['mcp-session-id', 'last-event-id', 'authorization', 'origin', 'cookie'])
        expect(headers, `${method} ${absent}`).not.toHaveProperty(absent);
    }
    // ping is answered by the bridge; nothing but POSTs of the known methods reached the server.
    expect(new Set(fixture!.received.map((request) => request.method))).toEqual(new Set(methods));
    expect(leaks(peer, [KEY])).toEqual([]);
    expect(await endAndExit(peer)).toBe(0);
  });

  it('the header-echo tool sees exactly the transport headers, Mcp-Name and the --header and --header-env values', async () => {
    const peer = await start();
    const frame = await callTool(peer, 'echo_headers');
    const headers = (frame['result'] as { structuredContent: { headers: Record<string, string> } })
      .structuredContent.headers;
    expect(headers).toMatchObject({
      ...TRANSPORT,
      'mcp-method': 'tools/call',
      'mcp-name': 'echo_headers',
      'x-team': 'blue',
      'x-api-key': KEY,
    });
    const mcpHeaders = Object.keys(headers)
      .filter((name) => name.startsWith('mcp-'))
      .sort();
    expect(mcpHeaders).toEqual(['mcp-method', 'mcp-name', 'mcp-protocol-version']);
    expect(headers).not.toHaveProperty('mcp-session-id');
    expect(headers).not.toHaveProperty('last-event-id');
    // The only line with the secret is the result that the tool itself returned.
    expect(leaks(peer, [KEY])).toEqual([JSON.stringify(frame)]);
  });

  it('a tools/call sends the Mcp-Param header that the tool declares, in Base64 when the value is not plain text', async () => {
    const peer = await start();
    expect(await call(peer, 'tools/list')).toHaveProperty('result');
    expect(await callTool(peer, 'annotated', { region: 'eu-west' })).toHaveProperty('result');
    expect(await callTool(peer, 'annotated', { region: 'Hello, 世界' })).toMatchObject({
      result: { content: [{ text: 'region Hello, 世界' }] },
    });
    const calls = fixture!.received.filter((request) => request.headers['mcp-name'] === 'annotated');
    expect(calls.map((request) => request.headers['mcp-param-region'])).toEqual([
      'eu-west',
      '=?base64?SGVsbG8sIOS4lueVjA==?=',
    ]);
  });
});
