/**
 * The token, refresh and registration responses are bounded like the metadata (src/oauth/http.ts:
 * 256 KiB): openid-client reads them with `response.json()`, which has no limit of its own. The
 * endless bodies below would never end without the limit (the request would run to its time limit
 * with another cause), so the outcome shows that the body stops being read: memory stays bounded.
 */
import { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerMetadata } from 'openid-client';
import { registerClient } from '../../src/oauth/dynamicRegistration.js';
import { configuration, refresh } from '../../src/oauth/flow.js';
import { listenLoopback } from '../fixtures/loopbackServer.js';
import type { LoopbackServer } from '../fixtures/loopbackServer.js';

/** 64 KiB of zeros, without end, until the response closes. */
function endless(): Readable {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return new Readable({
    read() {
      this.push(chunk);
    },
  });
}

/** Pipes an endless body into the response; stops when the client goes away. */
function stream(outgoing: ServerResponse, gzip: boolean): void {
  const source = endless();
  outgoing.once('close', () => source.destroy());
  if (gzip) {
    const zip = createGzip();
    outgoing.once('close', () => zip.destroy());
    source.pipe(zip).pipe(outgoing);
  } else source.pipe(outgoing);
}

let server: LoopbackServer;
let origin = '';

beforeAll(async () => {
  server = await listenLoopback((incoming, outgoing) => {
    const path = incoming.url ?? '';
    incoming.resume();
    if (path === '/.well-known/oauth-authorization-server') {
      outgoing.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metadata()));
    } else if (path === '/declared') {
      // Declares 10 MiB and sends a few bytes only: only the content-length can refuse it.
      outgoing.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 << 20) });
      outgoing.write('{"access_token":"');
    } else if (path === '/plain' || path === '/register') {
      outgoing.writeHead(path === '/register' ? 201 : 200, { 'content-type': 'application/json' });
      outgoing.write('{"client_id":"c","access_token":"a","token_type":"bearer","pad":"');
      stream(outgoing, false);
    } else if (path === '/gzip') {
      outgoing.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      stream(outgoing, true);
    } else outgoing.writeHead(404).end();
  }, undefined);
  origin = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  for (const socket of server.sockets) socket.destroy();
  await new Promise((resolve) => server.server.close(resolve));
});

const metadata = (tokenPath = '/plain'): ServerMetadata => ({
  issuer: origin,
  authorization_endpoint: `${origin}/authorize`,
  token_endpoint: `${origin}${tokenPath}`,
  registration_endpoint: `${origin}/register`,
  code_challenge_methods_supported: ['S256'],
});

const registration = { clientId: 'c', source: 'dynamic', authMethod: 'none' } as const;
/** The MCP URL and resource: loopback, so the loopback http server here is a sign-in URL. */
const RESOURCE = 'https://127.0.0.1/mcp';

const refreshAt = (tokenPath: string) =>
  refresh(configuration(metadata(tokenPath), registration, undefined, globalThis.fetch, RESOURCE), {
    refreshToken: 'rt',
    resource: RESOURCE,
  });

describe('the size limit of the token, refresh and registration responses', () => {
  it('refuses a refresh response that declares more than 256 KiB', async () => {
    await expect(refreshAt('/declared')).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the refresh failed: a response of the sign-in is too large',
    });
  });

  it('stops reading an endless refresh response past 256 KiB', async () => {
    await expect(refreshAt('/plain')).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the refresh failed: a response of the sign-in is too large',
    });
  });

  it('counts the decoded bytes of a gzip refresh response (an endless decompression)', async () => {
    await expect(refreshAt('/gzip')).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the refresh failed: a response of the sign-in is too large',
    });
  });

  it('refuses an endless registration response', async () => {
    await expect(
      registerClient(
        metadata(),
        {
          redirectUri: 'http://127.0.0.1:1/callback',
          clientName: 'test',
        },
        globalThis.fetch,
        RESOURCE,
      ),
    ).rejects.toMatchObject({
      code: 'registration_failed',
      detail: 'a response of the sign-in is too large',
    });
  });
});
