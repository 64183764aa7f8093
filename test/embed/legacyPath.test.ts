/**
 * The legacy path of embedded mode (docs/embedded.md#embedded-selection): the bridge's 2025-11-25 front end
 * over the server of the same process, with the listen stream, input rounds, progress, logging
 * and the stop at the end of the input.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { VSCODE_CAPABILITIES, initializeRequest, note, req } from '../helpers/bridgeProcess.js';
import { notification, parseFrame, responseTo } from '../helpers/rawPeer.js';
import type { Frame } from '../helpers/rawPeer.js';
import { startEmbedded } from './memoryPeer.js';
import type { MemoryPeer } from './memoryPeer.js';

const peers: MemoryPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) {
    peer.end();
    await peer.closed;
  }
});

/**
 * A legacy client after initialize, a tools/list and notifications/initialized, with the
 * catch-up of the first acknowledgment read: one list change for the tools it listed before.
 */
async function ready(options: Parameters<typeof startEmbedded>[0] = {}): Promise<MemoryPeer> {
  const peer = startEmbedded(options);
  peers.push(peer);
  peer.send(initializeRequest(1, VSCODE_CAPABILITIES));
  await peer.nextFrame(responseTo(1));
  peer.send(req('listed', 'tools/list'));
  await peer.nextFrame(responseTo('listed'));
  peer.send(note('notifications/initialized'));
  await peer.nextFrame(notification('notifications/tools/list_changed'));
  return peer;
}

const indexOf = (peer: MemoryPeer, predicate: (frame: Frame) => boolean): number[] =>
  peer.lines.flatMap((line, index) => {
    const frame = parseFrame(line);
    return frame !== undefined && predicate(frame) ? [index] : [];
  });

/** Milliseconds from now until the connection has stopped. */
async function stopTime(peer: MemoryPeer): Promise<number> {
  const started = Date.now();
  peer.end();
  await peer.closed;
  return Date.now() - started;
}

describe('embedded mode: the legacy path', () => {
  it('a tools/list right after notifications/initialized waits for the first acknowledgment and gets no list change', async () => {
    const peer = startEmbedded();
    peers.push(peer);
    peer.send(initializeRequest(1, VSCODE_CAPABILITIES));
    await peer.nextFrame(responseTo(1));
    peer.send(note('notifications/initialized'));
    // Sent before the acknowledgment: it waits for it (docs/notifications.md#notifications-first-list),
    // so no catch-up lists the tools again.
    peer.send(req(2, 'tools/list'));
    await peer.nextFrame(responseTo(2));
    expect(indexOf(peer, notification('notifications/tools/list_changed'))).toEqual([]);
  });

  it('the list changes of the server reach VS Code over the memory link before the result of the call', async () => {
    const peer = await ready();
    peer.send(req(2, 'tools/call', { name: 'add_tool', arguments: {} }));
    await peer.nextFrame(responseTo(2));
    // The catch-up, then the change of add_tool, both before the result (§5.8).
    const changes = indexOf(peer, notification('notifications/tools/list_changed'));
    expect(changes).toHaveLength(2);
    expect(changes[1]).toBeLessThan(indexOf(peer, responseTo(2))[0]!);
    expect(parseFrame(peer.lines[changes[1]!]!)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
    });
    peer.send(req(3, 'tools/list'));
    const tools = (await peer.nextFrame(responseTo(3))).result as { tools: { name: string }[] };
    expect(tools.tools.map((tool) => tool.name)).toContain('added_1');
  });

  it('after calls of the connection, a list change still reaches VS Code before the result that caused it', async () => {
    const peer = await ready();
    // Plain calls first: the server instance is then pinned and they take the short way
    // (src/embed/directRoute.ts); the change of add_tool goes through the listen stream.
    for (const id of [2, 3]) {
      peer.send(req(id, 'tools/call', { name: 'echo', arguments: { text: `m${id}` } }));
      await peer.nextFrame(responseTo(id));
    }
    peer.send(req(4, 'tools/call', { name: 'add_tool', arguments: {} }));
    await peer.nextFrame(responseTo(4));
    const changes = indexOf(peer, notification('notifications/tools/list_changed'));
    expect(changes).toHaveLength(2);
    expect(changes[1]).toBeLessThan(indexOf(peer, responseTo(4))[0]!);
    expect(indexOf(peer, responseTo(3))[0]).toBeLessThan(changes[1]!);
  });

  it('after calls of the connection, the progress of a call still reaches VS Code before its result', async () => {
    const peer = await ready();
    peer.send(req(2, 'tools/call', { name: 'echo', arguments: { text: 'm2' } }));
    await peer.nextFrame(responseTo(2));
    peer.send(
      req(3, 'tools/call', { name: 'progress', arguments: { count: 2 }, _meta: { progressToken: 'p' } }),
    );
    await peer.nextFrame(responseTo(3));
    const progress = indexOf(peer, (frame) => frame.method === 'notifications/progress');
    expect(progress).toHaveLength(2);
    expect(progress[1]).toBeLessThan(indexOf(peer, responseTo(3))[0]!);
  });

  it('the end of the input with a listen stream open stops at once', async () => {
    const peer = await ready();
    expect(await stopTime(peer)).toBeLessThan(1_000);
    await peer.outputEnded;
    expect(indexOf(peer, (frame) => frame.method === 'notifications/cancelled')).toEqual([]);
  });

  it('the end of the input cancels a slow call and a form waiting for VS Code, and stops within the grace', async () => {
    const peer = await ready({ limits: { shutdownGraceMs: 500 } });
    peer.send(req(2, 'tools/call', { name: 'slow', arguments: { ms: 60_000 } }));
    peer.send(req(3, 'tools/call', { name: 'ask_form', arguments: {} }));
    await peer.nextFrame((frame) => frame.method === 'elicitation/create');
    expect(await stopTime(peer)).toBeLessThan(1_500);
    await peer.outputEnded;
    expect(indexOf(peer, responseTo(2))).toEqual([]);
    // §2.13: the bridge request that waits for VS Code gets notifications/cancelled.
    expect(indexOf(peer, (frame) => frame.method === 'notifications/cancelled')).toHaveLength(1);
  });

  it('progress of a call reaches VS Code with its own token', async () => {
    const peer = await ready();
    peer.send(
      req(2, 'tools/call', { name: 'progress', arguments: { count: 3 }, _meta: { progressToken: 'p' } }),
    );
    const response = await peer.nextFrame(responseTo(2));
    expect(response.result).toEqual({ content: [{ type: 'text', text: 'sent 3 progress notifications' }] });
    const progress = peer.lines
      .map((line) => parseFrame(line)!)
      .filter((frame) => frame.method === 'notifications/progress')
      .map((frame) => frame.params);
    expect(progress).toEqual([
      { progressToken: 'p', progress: 1, total: 3, message: 'Step 1 of 3' },
      { progressToken: 'p', progress: 2, total: 3, message: 'Step 2 of 3' },
      { progressToken: 'p', progress: 3, total: 3, message: 'Step 3 of 3' },
    ]);
  });

  it('a URL elicitation of the server becomes an elicitation/create of mode url', async () => {
    const peer = await ready();
    peer.send(req(2, 'tools/call', { name: 'ask_url', arguments: {} }));
    const ask = await peer.nextFrame((frame) => frame.method === 'elicitation/create');
    expect(ask.params).toMatchObject({ mode: 'url', url: 'https://fixture.example.com/sign-in' });
    peer.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept' } });
    expect((await peer.nextFrame(responseTo(2))).result).toEqual({
      content: [{ type: 'text', text: 'url: accept' }],
    });
  });

  it('log messages reach VS Code at the level of logging/setLevel', async () => {
    const peer = await ready();
    peer.send(req(2, 'logging/setLevel', { level: 'warning' }));
    await peer.nextFrame(responseTo(2));
    peer.send(req(3, 'tools/call', { name: 'log', arguments: {} }));
    await peer.nextFrame(responseTo(3));
    const levels = peer.lines
      .map((line) => parseFrame(line)!)
      .filter((frame) => frame.method === 'notifications/message')
      .map((frame) => (frame.params as { level: string }).level);
    expect(levels).toEqual(['warning', 'error']);
  });

  it('the items fix applies to the tools of the server', async () => {
    const peer = await ready();
    peer.send(req(2, 'tools/list'));
    const response = await peer.nextFrame(responseTo(2));
    const tool = (response.result as { tools: { name: string; inputSchema: Frame }[] }).tools.find(
      (candidate) => candidate.name === 'bare_array',
    );
    expect(tool?.inputSchema).toMatchObject({ properties: { values: { type: 'array', items: {} } } });
  });
});
