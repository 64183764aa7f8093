/**
 * `x-mcp-header` needs the tool definition for every `tools/call` (docs/http-upstream.md#http-x-mcp-header,
 * §10.5 trap 31): a call of a tool that no `tools/list` through the bridge has named lists the
 * tools first (every page), and a call refused with -32020 lists them again and is sent once more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { killAllPeers } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { startCheapHttpUpstream } from '../fixtures/cheapHttpUpstream.js';
import type { CheapHttpUpstream } from '../fixtures/cheapHttpUpstream.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { HttpFixture } from '../fixtures/httpFixture.js';
import { call, callTool, endAndExit, firstText, handshake, startUrlBridge } from './httpSupport.js';

let fixture: HttpFixture | undefined;
let cheap: CheapHttpUpstream | undefined;

afterEach(async () => {
  await killAllPeers();
  await fixture?.close();
  await cheap?.close();
  fixture = undefined;
  cheap = undefined;
});

/** The POSTs after `initialize`, as `method` or `method name`, without the listen stream. */
const trail = (received: ReadonlyArray<{ method?: string; headers: Record<string, unknown> }>): string[] =>
  received
    .filter((request) => request.method !== 'server/discover' && request.method !== 'subscriptions/listen')
    .map((request) =>
      request.method === 'tools/call'
        ? `tools/call ${String(request.headers['mcp-name'])}`
        : String(request.method),
    );

async function startBridge(url: string): Promise<RawPeer> {
  const peer = startUrlBridge(url);
  expect(await handshake(peer)).toHaveProperty('result');
  return peer;
}

describe('tool definitions for tools/call over HTTP', () => {
  it('a call before any tools/list lists every page of tools first, then sends the Mcp-Param headers the tool declares', async () => {
    cheap = await startCheapHttpUpstream({ toolsPageSize: 2 });
    const peer = await startBridge(cheap.url);
    const frame = await callTool(peer, 'echo_headers', {
      region: 'eu',
      count: 3,
      options: { tenant: 'acme' },
    });
    expect(frame).toMatchObject({
      result: { structuredContent: { headers: { 'mcp-param-region': 'eu', 'mcp-param-count': '3' } } },
    });
    expect(trail(cheap.received)).toEqual([
      'tools/list',
      'tools/list',
      'tools/list',
      'tools/call echo_headers',
    ]);
    expect(
      cheap.received.filter((r) => r.method === 'tools/list').map((r) => r.body?.['params']),
    ).toMatchObject([
      { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      { cursor: '2' },
      { cursor: '4' },
    ]);
    // Known now: the next call goes at once.
    expect(await callTool(peer, 'echo_headers', { region: 'us' })).toHaveProperty('result');
    expect(trail(cheap.received).slice(3)).toEqual(['tools/call echo_headers', 'tools/call echo_headers']);
    expect(await endAndExit(peer)).toBe(0);
  });

  it('the SDK server accepts a call of an annotated tool made before any tools/list', async () => {
    fixture = await startHttpFixture();
    const peer = await startBridge(fixture.url);
    expect(firstText(await callTool(peer, 'annotated', { region: 'eu-west' }))).toBe('region eu-west');
    expect(trail(fixture.received)).toEqual(['tools/list', 'tools/call annotated']);
    expect(await endAndExit(peer)).toBe(0);
  });

  it('a call refused with -32020 after the tool changed its x-mcp-header lists the tools again and is sent once more', async () => {
    fixture = await startHttpFixture();
    const peer = await startBridge(fixture.url);
    expect(await call(peer, 'tools/list')).toHaveProperty('result');
    expect(firstText(await callTool(peer, 'rotate_header'))).toBe('annotated now uses Region2');
    expect(firstText(await callTool(peer, 'annotated', { region: 'eu' }))).toBe('region eu');
    expect(trail(fixture.received)).toEqual([
      'tools/list',
      'tools/call rotate_header',
      'tools/call annotated',
      'tools/list',
      'tools/call annotated',
    ]);
    const calls = fixture.received.filter((request) => request.headers['mcp-name'] === 'annotated');
    expect(
      calls.map((request) => [request.headers['mcp-param-region'], request.headers['mcp-param-region2']]),
    ).toEqual([
      ['eu', undefined],
      [undefined, 'eu'],
    ]);
    expect(await endAndExit(peer)).toBe(0);
  });

  it('a second -32020 of the same call reaches the client: the call is sent at most twice', async () => {
    cheap = await startCheapHttpUpstream();
    const peer = await startBridge(cheap.url);
    expect(await call(peer, 'tools/list')).toHaveProperty('result');
    cheap.intercept = (request) =>
      request.method === 'tools/call'
        ? {
            status: 400,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: (request.body?.['id'] as number | undefined) ?? null,
              error: { code: -32020, message: 'Header mismatch' },
            }),
          }
        : undefined;
    const frame = await callTool(peer, 'echo', { text: 'x' });
    expect(frame).toMatchObject({ error: { code: -32020 } });
    expect(trail(cheap.received)).toEqual(['tools/list', 'tools/call echo', 'tools/list', 'tools/call echo']);
    expect(await endAndExit(peer)).toBe(0);
  });
});
