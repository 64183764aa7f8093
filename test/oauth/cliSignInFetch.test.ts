/**
 * The fetch of the sign-in (src/edges/http/signInFetch.ts; docs/http-upstream.md#http-client): the requests of the sign-in trust the CA of `--ca-file` and go through the proxy of the
 * environment, like the MCP requests; loopback hosts are never proxied.
 */
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSignInFetch } from '../../src/edges/http/signInFetch.js';
import type { SignInFetch } from '../../src/edges/http/signInFetch.js';
import { makeTestCerts } from '../edges/http/support.js';
import type { TestCerts } from '../edges/http/support.js';
import { startConnectProxy } from '../fixtures/connectProxy.js';
import type { ConnectProxy } from '../fixtures/connectProxy.js';

let certs: TestCerts;
let server: Server;
let port: number;
/** A loopback MCP URL: every address is allowed to its sign-in. */
const LOCAL_MCP = 'https://127.0.0.1/mcp';
const hosts: string[] = [];
let signInFetch: SignInFetch | undefined;
let proxy: ConnectProxy | undefined;

beforeAll(async () => {
  certs = makeTestCerts();
  server = createServer({ key: certs.key, cert: certs.cert }, (request, response) => {
    hosts.push(request.headers.host ?? '');
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"issuer":"x"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});
afterEach(async () => {
  signInFetch?.close();
  await proxy?.close();
  signInFetch = proxy = undefined;
  hosts.length = 0;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  certs.remove();
});

describe('the fetch of the sign-in', () => {
  it('trusts the CA of --ca-file', async () => {
    signInFetch = createSignInFetch({ env: {}, caPem: certs.caPem, mcpUrl: LOCAL_MCP });
    const response = await signInFetch.fetch(
      `https://127.0.0.1:${port}/.well-known/oauth-authorization-server`,
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ issuer: 'x' });
  });

  it('without the CA, the certificate of the server is refused', async () => {
    signInFetch = createSignInFetch({ env: {}, mcpUrl: LOCAL_MCP });
    await expect(signInFetch.fetch(`https://127.0.0.1:${port}/`)).rejects.toThrow();
    expect(hosts).toEqual([]);
  });

  it('goes through the CONNECT proxy of HTTPS_PROXY for a host that is not loopback', async () => {
    proxy = await startConnectProxy({ targetPort: port });
    signInFetch = createSignInFetch({
      env: { HTTPS_PROXY: proxy.url },
      caPem: certs.caPem,
      mcpUrl: LOCAL_MCP,
    });
    // upstream.test (a name of the test certificate) is never resolved: the proxy maps every tunnel to the server.
    const response = await signInFetch.fetch(`https://upstream.test:${port}/token`, {
      method: 'POST',
      body: 'a=1',
    });
    expect(response.status).toBe(200);
    expect(proxy.targets).toEqual([`upstream.test:${port}`]);
    expect(hosts).toEqual([`upstream.test:${port}`]);
  });

  it('never proxies a loopback host', async () => {
    proxy = await startConnectProxy({ targetPort: port });
    signInFetch = createSignInFetch({
      env: { HTTPS_PROXY: proxy.url },
      caPem: certs.caPem,
      mcpUrl: LOCAL_MCP,
    });
    expect((await signInFetch.fetch(`https://127.0.0.1:${port}/`)).status).toBe(200);
    expect(proxy.connects).toBe(0);
  });

  it('a proxy that cannot work fails the request with the variable named, never its value', async () => {
    signInFetch = createSignInFetch({
      env: { HTTPS_PROXY: 'socks5://SECRET@proxy.example' },
      caPem: certs.caPem,
      mcpUrl: LOCAL_MCP,
    });
    const failure = await signInFetch.fetch('https://upstream.test/token').then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toBe(
      'cannot make the HTTP client for the sign-in: HTTPS_PROXY: the proxy URL has the scheme socks5; only http and https work',
    );
  });
});
