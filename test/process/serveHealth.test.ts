/**
 * `GET /healthz` of `mcp-bridge serve` (docs/serve.md#serve-health): the shared upstream's state,
 * 200 while it is idle or connected, 503 once its child exited, and 200 again after the next
 * `initialize` started a new child. Needs the build (`npm run build`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killAllPeers } from '../helpers/rawPeer.js';
import { processTable } from '../helpers/processTable.js';
import { waitForValue } from '../helpers/waitFor.js';
import { WAIT_MS, raw, rawSession, startServe } from './serveSupport.js';
import type { RawReply } from './serveSupport.js';

afterAll(killAllPeers);

/** The first answer of /healthz with `status`, asking again after each answer (an event, not a time). */
function healthUntil(port: number, status: number): Promise<RawReply> {
  let asking = false;
  let seen: RawReply | undefined;
  return waitForValue(
    () => {
      if (seen?.status === status) return seen;
      if (!asking) {
        asking = true;
        void health(port).then(
          (reply) => {
            seen = reply;
            asking = false;
          },
          () => {
            asking = false;
          },
        );
      }
      return undefined;
    },
    { what: `a /healthz answer ${status}`, timeoutMs: WAIT_MS },
  );
}

const health = (port: number, method = 'GET', headers: Record<string, string> = {}) =>
  raw(port, method, headers, undefined, '/healthz');

describe('mcp-bridge serve: GET /healthz', () => {
  it('is 200 idle, 200 connected, 503 after the child was killed, and 200 after the next initialize', async () => {
    const serve = await startServe();
    const idle = await health(serve.port);
    expect(idle.status).toBe(200);
    expect(JSON.parse(idle.body)).toEqual({ status: 'ok', upstream: 'idle' });
    expect(idle.headers['cache-control']).toBe('no-store');

    await rawSession(serve.port);
    expect(JSON.parse((await health(serve.port)).body)).toEqual({ status: 'ok', upstream: 'connected' });

    const children = processTable.childPids(serve.peer.child.pid!);
    expect(children).toHaveLength(1);
    process.kill(children[0]!, 'SIGKILL');
    const down = await healthUntil(serve.port, 503);
    expect(JSON.parse(down.body)).toEqual({ status: 'down', upstream: 'down' });

    await rawSession(serve.port);
    const again = await health(serve.port);
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ status: 'ok', upstream: 'connected' });
    const restarted = processTable.childPids(serve.peer.child.pid!);
    expect(restarted).toHaveLength(1);
    expect(restarted[0]).not.toBe(children[0]);
  });

  it('answers HEAD without a body and refuses POST with 405', async () => {
    const serve = await startServe();
    const head = await health(serve.port, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const post = await health(serve.port, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
    expect(JSON.parse(post.body)).toMatchObject({ error: { data: { cause: 'method_not_allowed' } } });
  });

  it('asks for the token where serve has one, and its body names no secret', async () => {
    const token = 'health-test-token-0123456789abcdef';
    const serve = await startServe([], { ...process.env, MCP_BRIDGE_SERVE_TOKEN: token });
    const without = await health(serve.port);
    expect(without.status).toBe(401);
    expect(without.headers['www-authenticate']).toBe('Bearer');
    const withToken = await health(serve.port, 'GET', { authorization: `Bearer ${token}` });
    expect(withToken.status).toBe(200);
    expect(withToken.body).toBe('{"status":"ok","upstream":"idle"}');
  });
});
