/**
 * Cancellation over HTTP is the close of the request's stream (docs/http-upstream.md#http-cancellation): a
 * client cancel and the end of stdin close the POST of a call in flight, and the bridge never
 * POSTs `notifications/cancelled`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { note } from '../helpers/bridgeProcess.js';
import { killAllPeers, responseTo } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { HttpFixture } from '../fixtures/httpFixture.js';
import { callTool, firstText, handshake, startUrlBridge } from './httpSupport.js';

let fixture: HttpFixture | undefined;

afterEach(async () => {
  await killAllPeers();
  await fixture?.close();
  fixture = undefined;
});

async function startWithSlowCall(): Promise<{ peer: RawPeer; server: HttpFixture }> {
  const server = (fixture = await startHttpFixture());
  const peer = startUrlBridge(server.url);
  expect(await handshake(peer)).toHaveProperty('result');
  peer.send({
    jsonrpc: '2.0',
    id: 'slow',
    method: 'tools/call',
    params: { name: 'slow', arguments: { ms: 30_000 } },
  });
  await waitFor(() => server.received.some((request) => request.headers['mcp-name'] === 'slow'));
  return { peer, server };
}

const canceledAtServer = (server: HttpFixture): boolean =>
  server.lines.some((line) => line.startsWith('slow: canceled after'));

describe('cancellation over HTTP', () => {
  it('a client cancel closes the POST of the call, which the server sees as a cancel, and nothing is POSTed for it', async () => {
    const { peer, server } = await startWithSlowCall();
    peer.send(note('notifications/cancelled', { requestId: 'slow', reason: 'the user stopped it' }));
    await waitFor(() => canceledAtServer(server));
    expect(server.received.map((request) => request.method)).not.toContain('notifications/cancelled');
    expect(firstText(await callTool(peer, 'echo', { text: 'after the cancel' }))).toBe('after the cancel');
    // A cancelled request gets no response.
    expect(peer.lines.some((line) => line.includes('"id":"slow"'))).toBe(false);
  });

  it('the end of stdin during a slow call closes its POST and exits with code 0', async () => {
    const { peer, server } = await startWithSlowCall();
    const started = Date.now();
    peer.closeStdin();
    expect((await peer.exit).code).toBe(0);
    expect(Date.now() - started).toBeLessThan(6_000);
    await waitFor(() => canceledAtServer(server));
    expect(server.received.map((request) => request.method)).not.toContain('notifications/cancelled');
    await expect(peer.nextFrame(responseTo('slow'), 100)).rejects.toThrow();
  });
});
