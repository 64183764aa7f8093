/**
 * The modern path of embedded mode (docs/embedded.md#embedded-selection): the server's own 2026-07-28
 * transport, with the answers to bad lines, the in-flight limit and the bounded stop.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { initializeRequest } from '../helpers/bridgeProcess.js';
import { modernRequest, notification, parseFrame, responseTo } from '../helpers/rawPeer.js';
import type { Frame } from '../helpers/rawPeer.js';
import { usePeers } from './memoryPeer.js';
import type { MemoryPeer } from './memoryPeer.js';

const start = usePeers();

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const listen = (): ReturnType<typeof modernRequest> =>
  modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } });
const slow = (ms: number): ReturnType<typeof modernRequest> =>
  modernRequest('tools/call', { name: 'slow', arguments: { ms } });

async function ask(peer: MemoryPeer, frame: object): Promise<Frame> {
  peer.send(frame);
  return peer.nextFrame(responseTo((frame as { id?: unknown }).id));
}

/** Ends the input; resolves with the milliseconds until the connection stopped. */
async function stopTime(peer: MemoryPeer): Promise<number> {
  const started = Date.now();
  peer.end();
  await peer.closed;
  await peer.outputEnded;
  return Date.now() - started;
}

const frames = (peer: MemoryPeer): Frame[] => peer.lines.map((line) => parseFrame(line)!);

describe('embedded mode: the modern path', () => {
  it('the end of the input right after a modern call: the call ends in the grace period and writes its result', async () => {
    const peer = start();
    const call = slow(300);
    peer.send(call);
    expect(await stopTime(peer)).toBeLessThan(1_500);
    expect(frames(peer)).toEqual([expect.objectContaining({ id: call.id, result: expect.anything() })]);
    expect(frames(peer)[0]!.result).toMatchObject({ content: [{ type: 'text', text: 'slept 300 ms' }] });
  });

  it('a call still running when the grace ends is cancelled without a result', async () => {
    const peer = start({ limits: { shutdownGraceMs: 300 } });
    peer.send(slow(60_000));
    await waitFor(() => peer.fixtureLog.includes('slow: started'), { what: 'the call at the tool' });
    const elapsed = await stopTime(peer);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1_500);
    expect(peer.lines).toEqual([]);
  });

  it('the end of the input ends a listen stream at once with its graceful result', async () => {
    const peer = start();
    const stream = listen();
    peer.send(stream);
    await peer.nextFrame(notification('notifications/subscriptions/acknowledged'));
    expect(await stopTime(peer)).toBeLessThan(500);
    expect(frames(peer).at(-1)).toEqual({
      jsonrpc: '2.0',
      id: stream.id,
      result: {
        resultType: 'complete',
        _meta: { [SUBSCRIPTION_ID]: stream.id },
      },
    });
  });

  it('the end of the input with a listen stream and a slow call: the stream ends at once, the call within the grace', async () => {
    const peer = start();
    const stream = listen();
    const call = slow(400);
    await ask(peer, modernRequest('tools/list'));
    peer.send(stream);
    peer.send(call);
    await peer.nextFrame(notification('notifications/subscriptions/acknowledged'));
    const stopped = stopTime(peer);
    const ended = await peer.nextFrame(responseTo(stream.id));
    // The server's identity, taken from an earlier result, is stamped as serveStdio does.
    expect(ended.result).toMatchObject({
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bridge-fixture-server' } },
    });
    expect(await stopped).toBeLessThan(1_500);
    const ids = frames(peer).map((frame) => frame.id);
    expect(ids.indexOf(stream.id)).toBeLessThan(ids.indexOf(call.id));
  });

  it('the list changes of the server reach a listen stream before the result of the call', async () => {
    const peer = start();
    const stream = listen();
    peer.send(stream);
    await peer.nextFrame(notification('notifications/subscriptions/acknowledged'));
    const call = modernRequest('tools/call', { name: 'add_tool', arguments: {} });
    await ask(peer, call);
    const methods = frames(peer).map((frame) => frame.method ?? frame.id);
    expect(methods).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
      call.id,
    ]);
  });

  it('a request above the in-flight limit gets -32603 at once', async () => {
    const peer = start({ limits: { maxInFlight: 1 } });
    peer.send(slow(200));
    const refused = await ask(peer, modernRequest('tools/list'));
    expect(refused.error).toMatchObject({ code: -32603, data: { cause: 'too_many_requests' } });
    await peer.nextFrame((frame) => 'result' in frame);
    expect((await ask(peer, modernRequest('tools/list'))).result).toHaveProperty('tools');
  });

  it("ping at the in-flight limit reaches the server: the bridge's rule of which requests count", async () => {
    const peer = start({ limits: { maxInFlight: 1 } });
    const call = slow(60_000);
    peer.send(call);
    await waitFor(() => peer.fixtureLog.includes('slow: started'), { what: 'the call at the tool' });
    const refused = await ask(peer, modernRequest('tools/list'));
    expect(refused.error).toMatchObject({ code: -32603, data: { cause: 'too_many_requests' } });
    const ping = modernRequest('ping');
    const pong = await ask(peer, ping);
    // It reaches the server, whose 2026-07-28 transport has no ping: the server's own answer,
    // not the refusal of the limit.
    expect(pong).toEqual({
      jsonrpc: '2.0',
      id: ping.id,
      error: { code: -32601, message: 'Method not found' },
    });
  });

  it('a line that is not a JSON-RPC message gets -32600 with its id', async () => {
    const peer = start();
    peer.send({ jsonrpc: '2.0', id: 9, result: 1, method: 3 });
    const error = await peer.nextFrame((frame) => 'error' in frame);
    expect(error).toMatchObject({ id: 9, error: { code: -32600, data: { cause: 'invalid_request_shape' } } });
    expect(await peer.era).toBe('modern');
  });

  it('a line above the line limit after the selection is dropped without a response', async () => {
    const peer = start({ maxLineBytes: 1024 });
    await ask(peer, modernRequest('tools/list'));
    peer.send(modernRequest('tools/list', { cursor: 'x'.repeat(2048) }));
    const after = modernRequest('tools/call', { name: 'echo', arguments: { text: 'after' } });
    await ask(peer, after);
    expect(peer.lines).toHaveLength(2);
  });

  it('a later initialize on the modern path gets the refusal of the server', async () => {
    const peer = start();
    await ask(peer, modernRequest('tools/list'));
    const response = await ask(peer, initializeRequest('again'));
    expect(response.error).toMatchObject({ code: -32022 });
  });

  it('a cancelled call leaves the in-flight count', async () => {
    const peer = start({ limits: { maxInFlight: 1 } });
    const call = slow(60_000);
    peer.send(call);
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id } });
    const next = await ask(peer, modernRequest('tools/list'));
    expect(next.result).toHaveProperty('tools');
    expect(await stopTime(peer)).toBeLessThan(500);
  });
});
