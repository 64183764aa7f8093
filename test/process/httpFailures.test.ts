/**
 * Limits and failures of the URL form (docs/http-upstream.md#http-client, docs/limits.md#limits-http): a large
 * result comes in one response, `--max-response-bytes` fails only the request it hits, a failed
 * request fails alone, and an HTTP upstream never makes the bridge exit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { killAllPeers, responseTo } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { HttpFixture } from '../fixtures/httpFixture.js';
import { WAIT_MS, call, callTool, endAndExit, firstText, handshake, startUrlBridge } from './httpSupport.js';

const MiB = 1024 * 1024;
let fixture: HttpFixture | undefined;

afterEach(async () => {
  await killAllPeers();
  await fixture?.close();
  fixture = undefined;
});

async function start(args: string[] = []): Promise<{ peer: RawPeer; server: HttpFixture }> {
  const server = (fixture = await startHttpFixture());
  const peer = startUrlBridge(server.url, args);
  expect(await handshake(peer)).toHaveProperty('result');
  return { peer, server };
}

const errorData = (frame: Frame) => (frame['error'] as { data?: { cause?: string; detail?: string } }).data;
const callsOf = (server: HttpFixture, name: string) =>
  server.received.filter((request) => request.headers['mcp-name'] === name).length;

describe('limits of the URL form', () => {
  it('a 5 MiB tool result arrives in one response', async () => {
    const { peer, server } = await start();
    const frame = await callTool(peer, 'big', { bytes: 5 * MiB }, 20_000);
    expect(firstText(frame)).toHaveLength(5 * MiB);
    expect(callsOf(server, 'big')).toBe(1);
    expect(await endAndExit(peer)).toBe(0);
  });

  it('a JSON response and an SSE event over --max-response-bytes fail that request alone with -32603, and the bridge keeps running', async () => {
    const { peer, server } = await start(['--max-response-bytes', String(MiB)]);
    const json = await callTool(peer, 'big', { bytes: 2 * MiB });
    expect(json).toMatchObject({ error: { code: -32603, data: { cause: 'invalid_response' } } });
    expect(errorData(json)?.detail ?? '').toMatch(/longer than the limit of 1048576 bytes/);
    const sse = await callTool(peer, 'big', { bytes: 2 * MiB, sse: true });
    expect(sse).toMatchObject({ error: { code: -32603, data: { cause: 'invalid_response' } } });
    expect(errorData(sse)?.detail ?? '').toMatch(/an event of the response stream is longer than the limit/);
    // Below the limit, in both shapes.
    expect(firstText(await callTool(peer, 'big', { bytes: MiB - 1024 }))).toHaveLength(MiB - 1024);
    expect(firstText(await callTool(peer, 'big', { bytes: MiB - 1024, sse: true }))).toHaveLength(MiB - 1024);
    expect(firstText(await callTool(peer, 'echo', { text: 'still here' }))).toBe('still here');
    expect(callsOf(server, 'big')).toBe(4);
    expect(await endAndExit(peer)).toBe(0);
  });
});

describe('failures of the URL form', () => {
  it('a request refused with HTTP 500 fails alone with its status, while another request goes on', async () => {
    const { peer, server } = await start();
    server.intercept = (request) =>
      request.headers['mcp-name'] === 'echo' ? { status: 500, body: 'upstream trouble' } : undefined;
    peer.send({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 400 } },
    });
    const refused = await callTool(peer, 'echo', { text: 'x' });
    expect(refused).toMatchObject({ error: { code: -32603, data: { cause: 'transport_failed' } } });
    expect(errorData(refused)?.detail).toMatch(/^tools\/call: .*HTTP status 500/);
    expect(firstText(await peer.nextFrame(responseTo('slow')))).toBe('slept 400 ms');
    server.intercept = undefined;
    expect(firstText(await callTool(peer, 'echo', { text: 'again' }))).toBe('again');
    expect(await endAndExit(peer)).toBe(0);
  });

  it('an HTTP upstream that goes away fails the requests but never ends the bridge, and the end of stdin exits with code 0', async () => {
    const { peer, server } = await start();
    peer.send({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 30_000 } },
    });
    // The call is in flight at the server before it goes away.
    await waitFor(() => server.lines.includes('slow: started'), { timeoutMs: WAIT_MS });
    await server.close();
    const lost = await peer.nextFrame(responseTo('slow'));
    expect(lost).toMatchObject({ error: { code: -32603 } });
    const next = await callTool(peer, 'echo', { text: 'x' });
    expect(next).toMatchObject({
      error: {
        code: -32603,
        data: { cause: 'transport_failed', detail: 'tools/call: the connection was refused (ECONNREFUSED)' },
      },
    });
    expect(await call(peer, 'tools/list')).toMatchObject({ error: { code: -32603 } });
    // Sentinel: the ping is answered after the bridge handled every failure before it.
    expect(await call(peer, 'ping')).toMatchObject({ result: {} });
    expect(peer.child.exitCode).toBeNull();
    expect(await endAndExit(peer)).toBe(0);
  });
});
