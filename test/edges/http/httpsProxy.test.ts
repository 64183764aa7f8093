import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
// The test CA comes from bash and openssl (reason in test/helpers/platform.ts); the file's hooks run only with its tests.
import { NO_POSIX_TOOLS } from '../../helpers/platform.js';
import { createHttpUpstream } from '../../../src/edges/http/httpUpstream.js';
import type { HttpUpstreamConfig, HttpUpstreamConnection } from '../../../src/edges/http/httpUpstream.js';
import { BridgeError } from '../../../src/protocol/bridgeError.js';
import { startCheapHttpUpstream } from '../../fixtures/cheapHttpUpstream.js';
import type { CheapHttpUpstream } from '../../fixtures/cheapHttpUpstream.js';
import { startConnectProxy } from '../../fixtures/connectProxy.js';
import type { ConnectProxy } from '../../fixtures/connectProxy.js';
import { collect, guardLoopback, makeTestCerts, recordingLogger } from './support.js';
import type { RecordingLogger, TestCerts } from './support.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };

let certs: TestCerts;
let server: CheapHttpUpstream;
let proxy: ConnectProxy | undefined;
let logger: RecordingLogger;
const connections: HttpUpstreamConnection[] = [];
let guard: ReturnType<typeof guardLoopback>;

beforeAll(() => {
  certs = makeTestCerts();
  guard = guardLoopback();
});
afterAll(() => {
  certs.remove();
  expect(guard.stop()).toEqual([]);
});
beforeEach(async () => {
  server = await startCheapHttpUpstream({ tls: { key: certs.key, cert: certs.cert } });
  logger = recordingLogger();
});
afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  await server.close();
  await proxy?.close();
  proxy = undefined;
});

function connect(config: Partial<HttpUpstreamConfig> = {}): HttpUpstreamConnection {
  const connection = createHttpUpstream({ url: server.url, env: {}, ...config }, logger);
  connections.push(connection);
  return connection;
}

const echo = async (connection: HttpUpstreamConnection) => {
  const events = await collect(
    connection.request('tools/call', { _meta: META, name: 'echo', arguments: { text: 'over tls' } }),
  );
  return events.at(-1)?.frame;
};

const failure = async (promise: Promise<unknown>): Promise<BridgeError> => {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(BridgeError);
  return error as BridgeError;
};

/** The upstream under a name that is not loopback; the test proxy maps it to the local server. */
const remoteUrl = () => `https://upstream.test:${server.port}/mcp`;

describe.skipIf(NO_POSIX_TOOLS)('trust', () => {
  it('fails with transport_failed when the server certificate is from an unknown CA, before any request', async () => {
    const error = await failure(echo(connect()));
    expect(error).toMatchObject({ code: 'transport_failed', httpStatus: undefined });
    expect(error.detail).toMatch(/^tools\/call: the certificate of the server is not trusted \([A-Z_]+\)$/);
    expect(server.received).toHaveLength(0);
  });

  it('works with the CA given as caPem, added to the default CAs', async () => {
    expect(await echo(connect({ caPem: certs.caPem }))).toMatchObject({
      result: { content: [{ text: 'over tls' }] },
    });
    expect(
      await echo(connect({ caPem: certs.caPem, url: `https://localhost:${server.port}/mcp` })),
    ).toHaveProperty('result');
  });
});

describe.skipIf(NO_POSIX_TOOLS)('proxy', () => {
  it('tunnels through HTTPS_PROXY with CONNECT to a host that is not loopback', async () => {
    proxy = await startConnectProxy({ targetPort: server.port });
    const connection = connect({ url: remoteUrl(), caPem: certs.caPem, env: { HTTPS_PROXY: proxy.url } });
    expect(await echo(connection)).toHaveProperty('result');
    expect(await echo(connection)).toHaveProperty('result');
    expect(proxy.connects).toBeGreaterThan(0);
    expect(proxy.targets[0]).toBe(`upstream.test:${server.port}`);
    expect(proxy.plainRequests).toBe(0);
    expect(server.received[0]!.headers['host']).toBe(`upstream.test:${server.port}`);
  });

  it('uses https_proxy, ALL_PROXY and all_proxy the same way', async () => {
    for (const variable of ['https_proxy', 'ALL_PROXY', 'all_proxy']) {
      proxy = await startConnectProxy({ targetPort: server.port });
      const connection = connect({ url: remoteUrl(), caPem: certs.caPem, env: { [variable]: proxy.url } });
      expect(await echo(connection)).toHaveProperty('result');
      // The tools/list that teaches the tool definitions, then the call: a tunnel each.
      expect(proxy.connects).toBe(2);
      connection.close();
      await proxy.close();
      proxy = undefined;
    }
  });

  it('sends the credentials of the proxy URL to the proxy only', async () => {
    const expected = `Basic ${Buffer.from('user:p@ss w').toString('base64')}`;
    proxy = await startConnectProxy({ targetPort: server.port, requireAuthorization: expected });
    const withCredentials = proxy.url.replace('http://', 'http://user:p%40ss%20w@');
    const connection = connect({
      url: remoteUrl(),
      caPem: certs.caPem,
      env: { HTTPS_PROXY: withCredentials },
    });
    expect(await echo(connection)).toHaveProperty('result');
    // Every tunnel (the tools/list that teaches the tool definitions, then the call) has them.
    expect(proxy.authorizations).toEqual([expected, expected]);
    expect(server.received[0]!.headers).not.toHaveProperty('proxy-authorization');
  });

  it('fails with transport_failed when the proxy refuses the tunnel', async () => {
    proxy = await startConnectProxy({ targetPort: server.port, requireAuthorization: 'Basic other' });
    const connection = connect({ url: remoteUrl(), caPem: certs.caPem, env: { HTTPS_PROXY: proxy.url } });
    const error = await failure(echo(connection));
    expect(error).toMatchObject({ code: 'transport_failed' });
    expect(error.detail).toBe('tools/call: the proxy refused the tunnel with the status 407');
    expect(server.received).toHaveLength(0);
  });

  it('never proxies a loopback upstream, even without NO_PROXY', async () => {
    proxy = await startConnectProxy({ targetPort: server.port });
    const env = { HTTPS_PROXY: proxy.url, ALL_PROXY: proxy.url };
    expect(await echo(connect({ caPem: certs.caPem, env }))).toHaveProperty('result');
    const localhost = `https://localhost:${server.port}/mcp`;
    expect(await echo(connect({ caPem: certs.caPem, env, url: localhost }))).toHaveProperty('result');
    expect(proxy.connects).toBe(0);
  });

  it('goes direct for a host that NO_PROXY names', async () => {
    proxy = await startConnectProxy({ targetPort: server.port });
    // A NO_PROXY match on a loopback name (the rule of non-loopback names is tested in dispatcher.test.ts
    // to keep every connection of the tests on loopback).
    const env = { HTTPS_PROXY: proxy.url, NO_PROXY: 'upstream.test,127.0.0.1' };
    expect(await echo(connect({ caPem: certs.caPem, env }))).toHaveProperty('result');
    expect(proxy.connects).toBe(0);
  });

  it('fails every request with connect_failed when the proxy URL is not http or https, and logs why once', async () => {
    const connection = connect({
      url: remoteUrl(),
      caPem: certs.caPem,
      env: { HTTPS_PROXY: 'socks5://user:secret@127.0.0.1:1080' },
    });
    for (let i = 0; i < 2; i++) {
      const error = await failure(echo(connection));
      expect(error).toMatchObject({ code: 'connect_failed' });
      expect(error.detail).toBe('HTTPS_PROXY: the proxy URL has the scheme socks5; only http and https work');
    }
    expect(logger.lines).toEqual([
      {
        scope: 'mcp_http',
        level: 'err',
        text: 'cannot make the HTTP client for the upstream server: HTTPS_PROXY: the proxy URL has the scheme socks5; only http and https work',
      },
    ]);
    expect(server.received).toHaveLength(0);
  });
});
