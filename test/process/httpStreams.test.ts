/**
 * The notifications of a request over HTTP come from its own SSE response (docs/http-upstream.md#http-responses
 * ): progress with the client's token, and log messages at the level of logging/setLevel.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { killAllPeers, notification, responseTo } from '../helpers/rawPeer.js';
import type { Frame } from '../helpers/rawPeer.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { HttpFixture } from '../fixtures/httpFixture.js';
import { call, endAndExit, firstText, handshake, startUrlBridge } from './httpSupport.js';

let fixture: HttpFixture | undefined;

afterEach(async () => {
  await killAllPeers();
  await fixture?.close();
  fixture = undefined;
});

describe('notifications of a request over HTTP', () => {
  it('the progress of a call reaches the client before its result, and its log messages at the level set', async () => {
    fixture = await startHttpFixture();
    const peer = startUrlBridge(fixture.url);
    expect(await handshake(peer)).toHaveProperty('result');
    expect(await call(peer, 'logging/setLevel', { level: 'info' })).toMatchObject({ result: {} });

    peer.send({
      jsonrpc: '2.0',
      id: 'p',
      method: 'tools/call',
      params: { name: 'progress', arguments: { count: 3 }, _meta: { progressToken: 'token-p' } },
    });
    expect(firstText(await peer.nextFrame(responseTo('p')))).toBe('sent 3 progress notifications');
    const progress: Frame[] = [];
    for (let i = 0; i < 3; i++)
      progress.push(await peer.nextFrame(notification('notifications/progress'), 100));
    expect(progress.map((frame) => frame['params'])).toEqual(
      [1, 2, 3].map((n) => ({
        progressToken: 'token-p',
        progress: n,
        total: 3,
        message: `Step ${n} of 3`,
      })),
    );
    const responseLine = peer.lines.findIndex((line) => line.includes('"id":"p"'));
    const lastProgressLine = peer.lines.findLastIndex((line) => line.includes('"token-p"'));
    expect(lastProgressLine).toBeLessThan(responseLine);

    peer.send({ jsonrpc: '2.0', id: 'l', method: 'tools/call', params: { name: 'log', arguments: {} } });
    await peer.nextFrame(responseTo('l'));
    const levels: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const frame = await peer.nextFrame(notification('notifications/message'), 100);
      levels.push((frame['params'] as { level: unknown }).level);
    }
    expect(levels).toEqual(['info', 'warning', 'error']);
    await expect(peer.nextFrame(notification('notifications/message'), 100)).rejects.toThrow();
    expect(await endAndExit(peer)).toBe(0);
  });
});
