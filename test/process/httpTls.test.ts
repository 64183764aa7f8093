/**
 * Trust of the URL form (docs/http-upstream.md#http-client, docs/testing.md#testing-https): a server certificate of an
 * unknown CA fails initialize with transport_failed before any request reaches the server, and
 * leaves the bridge running and ready for another initialize; `--ca-file` with that CA works.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// The test CA comes from bash and openssl (reason in test/helpers/platform.ts); the file's hooks run only with its tests.
import { NO_POSIX_TOOLS } from '../helpers/platform.js';
import { initializeRequest } from '../helpers/bridgeProcess.js';
import { killAllPeers, responseTo } from '../helpers/rawPeer.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { HttpFixture } from '../fixtures/httpFixture.js';
import {
  bridgeEnv,
  call,
  callTool,
  endAndExit,
  firstText,
  handshake,
  makeTestCerts,
  startUrlBridge,
  WAIT_MS,
  writeIn,
} from './httpSupport.js';
import type { TestCerts } from './httpSupport.js';

let certs: TestCerts;
let dir: string;
let caFile: string;
let fixture: HttpFixture | undefined;

beforeAll(() => {
  certs = makeTestCerts();
  dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-tls-'));
  caFile = writeIn(dir, 'ca.pem', certs.caPem);
});
afterAll(() => {
  certs.remove();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await killAllPeers();
  await fixture?.close();
  fixture = undefined;
});

const startFixture = async (): Promise<HttpFixture> =>
  (fixture = await startHttpFixture({ tls: { key: certs.key, cert: certs.cert } }));

describe.skipIf(NO_POSIX_TOOLS)('trust of the URL form', () => {
  it('an untrusted server certificate fails initialize with -32603 transport_failed, and the state stays retryable', async () => {
    const server = await startFixture();
    const peer = startUrlBridge(server.url, ['--log-level', 'debug']);
    peer.send(initializeRequest(1));
    const first = await peer.nextFrame(responseTo(1), WAIT_MS);
    expect(first).toMatchObject({
      error: {
        code: -32603,
        data: {
          cause: 'transport_failed',
          detail: expect.stringMatching(
            /^server\/discover: the certificate of the server is not trusted \([A-Z_]+\)$/,
          ) as unknown,
        },
      },
    });
    // The bridge keeps running: ping is answered, and a new initialize is tried again.
    expect(await call(peer, 'ping')).toMatchObject({ result: {} });
    peer.send(initializeRequest(2));
    const second = await peer.nextFrame(responseTo(2), WAIT_MS);
    expect(second).toMatchObject({ error: { code: -32603, data: { cause: 'transport_failed' } } });
    expect(server.received).toEqual([]);
    expect(peer.stderr).toContain(
      'mcp-bridge-vscode: bridge: error: server/discover failed: transport_failed ' +
        '(server/discover: the certificate of the server is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE))',
    );
    expect(
      [...peer.lines, ...peer.stderr].filter((line) => line.includes(`127.0.0.1:${server.port}`)),
    ).toEqual([]);
    expect(await endAndExit(peer)).toBe(0);
  });

  it('--ca-file with the CA of the server makes HTTPS work', async () => {
    const server = await startFixture();
    const peer = startUrlBridge(server.url, ['--ca-file', caFile]);
    expect(await handshake(peer)).toHaveProperty('result.serverInfo.name', 'bridge-fixture-server');
    expect(firstText(await callTool(peer, 'echo', { text: 'over tls' }))).toBe('over tls');
    expect(server.received.map((request) => request.method)).toContain('tools/call');
    expect(await endAndExit(peer)).toBe(0);
  });

  it('--ca-file adds to the default CAs: a CA of NODE_EXTRA_CA_CERTS stays trusted', async () => {
    const server = await startFixture();
    const other = makeTestCerts();
    try {
      const otherCa = writeIn(dir, 'other-ca.pem', other.caPem);
      // The server's CA comes from NODE_EXTRA_CA_CERTS only; --ca-file names an unrelated CA.
      const peer = startUrlBridge(
        server.url,
        ['--ca-file', otherCa],
        bridgeEnv({ NODE_EXTRA_CA_CERTS: caFile }),
      );
      expect(await handshake(peer)).toHaveProperty('result.serverInfo.name', 'bridge-fixture-server');
      expect(await endAndExit(peer)).toBe(0);
    } finally {
      other.remove();
    }
  });
});
