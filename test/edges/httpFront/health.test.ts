import { NEVER } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpFront } from '../../../src/edges/httpFront/server.js';
import type { HttpFront } from '../../../src/edges/httpFront/server.js';
import type { UpstreamState } from '../../../src/edges/httpFront/health.js';

const quiet = { log: () => undefined, enabled: () => false };
let front: HttpFront | undefined;
afterEach(async () => {
  await front?.close();
  front = undefined;
});

async function start(state: { now: UpstreamState }, token?: string): Promise<string> {
  front = await startHttpFront({
    host: '127.0.0.1',
    port: 0,
    allowOrigins: [],
    ...(token === undefined ? {} : { token }),
    maxBodyBytes: 1000,
    maxSessions: 2,
    maxPending: 2,
    sessionIdleMs: 60_000,
    keepAliveMs: 60_000,
    maxBufferedFrames: 10,
    bodyTimeoutMs: 5_000,
    maxConnections: 10,
    maxSessionBufferBytes: 10_000,
    maxDepth: 10,
    bridge: () => NEVER,
    logger: quiet,
    health: () => state.now,
  });
  return `http://127.0.0.1:${front.port}/healthz`;
}

describe('GET /healthz', () => {
  it('answers 200 while the upstream is connected or idle and 503 once it is down', async () => {
    const state: { now: UpstreamState } = { now: 'idle' };
    const url = await start(state);
    const idle = await fetch(url);
    expect(idle.status).toBe(200);
    expect(await idle.json()).toEqual({ status: 'ok', upstream: 'idle' });
    state.now = 'connected';
    expect(await (await fetch(url)).json()).toEqual({ status: 'ok', upstream: 'connected' });
    state.now = 'down';
    const down = await fetch(url);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'down', upstream: 'down' });
  });

  it('answers HEAD without a body and refuses other methods with 405', async () => {
    const url = await start({ now: 'connected' });
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(url, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('asks for the token where the server has one', async () => {
    const url = await start({ now: 'connected' }, 'sekrit-token-1');
    expect((await fetch(url)).status).toBe(401);
    const wrong = await fetch(url, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    const right = await fetch(url, { headers: { authorization: 'Bearer sekrit-token-1' } });
    expect(right.status).toBe(200);
    expect(await right.text()).not.toContain('sekrit');
  });
});
