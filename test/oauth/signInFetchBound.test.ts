/**
 * The dispatchers of the sign-in's fetch are bounded (src/edges/http/signInFetch.ts;
 * docs/sign-in.md#sign-in-urls): origins named by an untrusted server (docs/security.md#security-rules) cannot
 * make the bridge keep open sockets to any number of origins. Twelve origins are fetched once
 * each with keep-alive; only the eight most recently used keep their socket.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { createSignInFetch } from '../../src/edges/http/signInFetch.js';
import type { SignInFetch } from '../../src/edges/http/signInFetch.js';
import { listenLoopback } from '../fixtures/loopbackServer.js';
import type { LoopbackServer } from '../fixtures/loopbackServer.js';

/** A loopback MCP URL: every address is allowed to its sign-in. */
const LOCAL_MCP = 'https://127.0.0.1/mcp';
const servers: LoopbackServer[] = [];
let signInFetch: SignInFetch | undefined;

/** An origin that answers 200 and asks the client to keep the socket for ten minutes. */
async function origin(): Promise<LoopbackServer> {
  const made = await listenLoopback((_request, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json', 'keep-alive': 'timeout=600' }).end('{}');
  }, undefined);
  made.server.keepAliveTimeout = 600_000;
  servers.push(made);
  return made;
}

/** The open sockets of each server once `done` holds, or after 3 s (then the test fails on them). */
async function openSockets(done: (counts: number[]) => boolean): Promise<number[]> {
  const counts = (): number[] => servers.map((s) => s.sockets.size);
  await waitFor(() => done(counts()), { timeoutMs: 3_000, everyMs: 20 }).catch(() => undefined);
  return counts();
}

afterEach(async () => {
  signInFetch?.close();
  signInFetch = undefined;
  for (const s of servers.splice(0)) {
    for (const socket of s.sockets) socket.destroy();
    await new Promise((resolve) => s.server.close(resolve));
  }
});

describe('the dispatchers of the sign-in fetch', () => {
  it('keeps sockets to the eight most recently used origins only, and closes the evicted ones', async () => {
    for (let i = 0; i < 12; i += 1) await origin();
    signInFetch = createSignInFetch({ env: {}, mcpUrl: LOCAL_MCP });
    for (const s of servers) {
      const response = await signInFetch.fetch(
        `http://127.0.0.1:${s.port}/.well-known/oauth-authorization-server`,
      );
      expect(await response.json()).toEqual({});
    }
    const total = (counts: number[]): number => counts.reduce((a, b) => a + b, 0);
    const counts = await openSockets((c) => total(c) <= 8);
    expect(counts).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('a use moves an origin to the front: the least recently used one is closed, and works again later', async () => {
    for (let i = 0; i < 9; i += 1) await origin();
    signInFetch = createSignInFetch({ env: {}, mcpUrl: LOCAL_MCP });
    const get = async (s: LoopbackServer | undefined): Promise<number> =>
      (await signInFetch!.fetch(`http://127.0.0.1:${s?.port ?? 0}/`)).status;
    for (const s of servers.slice(0, 8)) expect(await get(s)).toBe(200);
    expect(await get(servers[0])).toBe(200); // the first origin is now the most recently used
    expect(await get(servers[8])).toBe(200); // the ninth evicts the second, not the first
    const counts = await openSockets((c) => c[1] === 0);
    expect(counts).toEqual([1, 0, 1, 1, 1, 1, 1, 1, 1]);
    expect(await get(servers[1])).toBe(200); // a new dispatcher for the evicted origin
    expect(await openSockets((c) => c[2] === 0)).toEqual([1, 1, 0, 1, 1, 1, 1, 1, 1]);
  });
});
