/**
 * The name lookups of the HTTP clients (src/edges/http/lookup.ts; docs/sign-in.md#sign-in-urls):
 * the sign-in's connections refuse a name that resolves to a local address unless the MCP server
 * is on one, judged on the addresses the connection uses; localhost names reach loopback without
 * any DNS query (RFC 6761 §6.3), for the sign-in and for the MCP requests alike.
 */
import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it } from 'vitest';
import { fetch as undiciFetch } from 'undici';
import type { Dispatcher } from 'undici';
import { createDispatcher } from '../../../src/edges/http/dispatcher.js';
import { AddressRefusedError, guardedLookup, localhostLookup } from '../../../src/edges/http/lookup.js';
import type { Lookup, Resolve } from '../../../src/edges/http/lookup.js';
import { createSignInFetch } from '../../../src/edges/http/signInFetch.js';
import type { SignInFetch } from '../../../src/edges/http/signInFetch.js';
import { listenLoopback } from '../../fixtures/loopbackServer.js';
import type { LoopbackServer } from '../../fixtures/loopbackServer.js';

/** A resolver of fixed names that records every name it is asked for. */
function fakeResolver(names: Record<string, readonly string[]>): { resolve: Resolve; asked: string[] } {
  const asked: string[] = [];
  const resolve: Resolve = (hostname) => {
    asked.push(hostname);
    const addresses = names[hostname];
    if (addresses === undefined)
      return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  return { resolve, asked };
}

type Answer = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

const ask = (lookup: Lookup, hostname: string, options: { all?: boolean; family?: number } = { all: true }) =>
  new Promise<Answer>((resolve) => {
    lookup(hostname, options, (error, address, family) =>
      resolve(family === undefined ? { error, address } : { error, address, family }),
    );
  });

const NAMES = {
  'mcp.example': ['203.0.113.5'],
  'as.example': ['203.0.113.6'],
  'rebind.example': ['10.0.0.1'],
  'mixed.example': ['10.0.0.1', '203.0.113.9'],
  'mcp.corp': ['10.0.0.5'],
  'idp.corp': ['10.0.0.6'],
  'meta.corp': ['169.254.169.254'],
  'self.example': ['127.0.0.1'],
};

describe('guardedLookup allows a local address only to an MCP server on a local address', () => {
  it('a public MCP server: a name on a private, loopback or link-local address is refused', async () => {
    const { resolve } = fakeResolver(NAMES);
    const lookup = guardedLookup('mcp.example', resolve);
    expect(await ask(lookup, 'as.example')).toEqual({
      error: null,
      address: [{ address: '203.0.113.6', family: 4 }],
    });
    for (const [name, kind] of [
      ['rebind.example', 'a private address'],
      ['self.example', 'a loopback address'],
      ['meta.corp', 'a link-local address'],
    ]) {
      const answer = await ask(lookup, name ?? '');
      expect(answer.error).toBeInstanceOf(AddressRefusedError);
      expect(answer.error?.message).toBe(
        `the host resolves to ${kind}, allowed only when the MCP server is on one`,
      );
      expect(answer.error?.code).toBe('ERR_SIGN_IN_ADDRESS_REFUSED');
    }
  });

  it('keeps only the allowed addresses of a name with several', async () => {
    const { resolve } = fakeResolver(NAMES);
    expect(await ask(guardedLookup('mcp.example', resolve), 'mixed.example')).toEqual({
      error: null,
      address: [{ address: '203.0.113.9', family: 4 }],
    });
    expect(await ask(guardedLookup('mcp.example', resolve), 'mixed.example', {})).toEqual({
      error: null,
      address: '203.0.113.9',
      family: 4,
    });
  });

  it('an MCP server whose name resolves to a private address: private names pass, loopback and link-local do not', async () => {
    const { resolve } = fakeResolver(NAMES);
    const lookup = guardedLookup('mcp.corp', resolve);
    expect(await ask(lookup, 'idp.corp')).toEqual({
      error: null,
      address: [{ address: '10.0.0.6', family: 4 }],
    });
    expect((await ask(lookup, 'self.example')).error?.message).toBe(
      'the host resolves to a loopback address, allowed only when the MCP server is on one',
    );
    expect((await ask(lookup, 'meta.corp')).error?.message).toBe(
      'the host resolves to a link-local address, allowed only when the MCP server is on one',
    );
  });

  it('a loopback MCP server allows every address', async () => {
    const { resolve } = fakeResolver(NAMES);
    for (const mcp of ['127.0.0.1', 'localhost', 'mcp.localhost', '[::1]']) {
      const answer = await ask(guardedLookup(mcp, resolve), 'rebind.example');
      expect(answer).toEqual({ error: null, address: [{ address: '10.0.0.1', family: 4 }] });
    }
  });

  it('resolves localhost names to loopback without asking the resolver (RFC 6761 §6.3)', async () => {
    const { resolve, asked } = fakeResolver(NAMES);
    const lookup = guardedLookup('mcp.localhost', resolve);
    expect(await ask(lookup, 'auth.localhost')).toEqual({
      error: null,
      address: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect(await ask(lookup, 'LOCALHOST', { family: 6, all: true })).toEqual({
      error: null,
      address: [{ address: '::1', family: 6 }],
    });
    expect(await ask(localhostLookup(resolve), 'a.b.localhost.', {})).toEqual({
      error: null,
      address: '127.0.0.1',
      family: 4,
    });
    expect(asked).toEqual([]);
  });
});

describe('the connections (real servers on 127.0.0.1)', () => {
  const servers: LoopbackServer[] = [];
  const connections: number[] = [];
  let signInFetch: SignInFetch | undefined;
  let dispatcher: Dispatcher | undefined;

  afterEach(async () => {
    signInFetch?.close();
    await dispatcher?.destroy();
    signInFetch = dispatcher = undefined;
    connections.length = 0;
    for (const s of servers.splice(0)) {
      for (const socket of s.sockets) socket.destroy();
      await new Promise((resolve) => s.server.close(resolve));
    }
  });

  async function server(): Promise<LoopbackServer> {
    const made = await listenLoopback((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    }, undefined);
    made.server.on('connection', () => connections.push(made.port));
    servers.push(made);
    return made;
  }

  const causes = (error: unknown): unknown[] => {
    const chain: unknown[] = [];
    for (let at = error; at !== undefined && at !== null; at = (at as { cause?: unknown }).cause)
      chain.push(at);
    return chain;
  };

  it('the sign-in of a public MCP server never connects to a name that resolves to 127.0.0.1', async () => {
    const s = await server();
    const { resolve } = fakeResolver({ ...NAMES, 'as.test': ['127.0.0.1'] });
    signInFetch = createSignInFetch({ env: {}, mcpUrl: 'https://mcp.example/mcp', resolve });
    const failure = await signInFetch.fetch(`http://as.test:${s.port}/token`, { method: 'POST' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(causes(failure).find((cause) => cause instanceof AddressRefusedError)).toMatchObject({
      reason: 'the host resolves to a loopback address, allowed only when the MCP server is on one',
    });
    expect(connections).toEqual([]);
    signInFetch.close();
    // The same name for a loopback MCP server connects.
    signInFetch = createSignInFetch({ env: {}, mcpUrl: 'http://127.0.0.1:1/mcp', resolve });
    const response = await signInFetch.fetch(`http://as.test:${s.port}/token`, { method: 'POST' });
    expect(await response.json()).toEqual({ ok: true });
    expect(connections).toEqual([s.port]);
  });

  it('the sign-in reaches mcp.localhost without asking the resolver', async () => {
    const s = await server();
    const { resolve, asked } = fakeResolver(NAMES);
    signInFetch = createSignInFetch({ env: {}, mcpUrl: `http://mcp.localhost:${s.port}/mcp`, resolve });
    const response = await signInFetch.fetch(
      `http://mcp.localhost:${s.port}/.well-known/oauth-protected-resource`,
    );
    expect(await response.json()).toEqual({ ok: true });
    expect(asked).toEqual([]);
  });

  it('the MCP requests reach mcp.localhost with the default lookup, which DNS here does not resolve', async () => {
    const s = await server();
    const url = new URL(`http://mcp.localhost:${s.port}/mcp`);
    const made = createDispatcher(url, {
      env: { HTTPS_PROXY: 'http://127.0.0.1:1', ALL_PROXY: 'http://127.0.0.1:1' },
    });
    if (!made.ok) throw new Error(made.reason);
    dispatcher = made.dispatcher;
    expect(made.proxied).toBe(false);
    const response = await undiciFetch(url, { method: 'POST', dispatcher });
    expect(await response.json()).toEqual({ ok: true });
    expect(connections).toEqual([s.port]);
  });
});
