/**
 * Version negotiation with the upstream (docs/lifecycle.md#lifecycle-initialize step 3 and 5,
 * docs/lifecycle.md#lifecycle-version-retry, docs/errors.md#errors-upstream-codes): a `-32022` UnsupportedProtocolVersion whose `data.supported` lists 2026-07-28 is
 * retried once and `initialize` succeeds; any other list fails `initialize` with the offered
 * versions named, never the URL. Over stdio (scripted upstream) and Streamable HTTP (HTTP 400
 * with the JSON-RPC error body). Needs the build (`npm run build`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  bridgeLines,
  handshakeWithin,
  scripted,
  startBridge,
  upstreamStderr,
} from '../helpers/bridgeProcess.js';
import { killAllPeers } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { FixtureRequest, HttpFixture } from '../fixtures/httpFixture.js';
import { callTool, firstText, startUrlBridge } from './httpSupport.js';

const STARTUP_MS = 30_000;
let fixture: HttpFixture | undefined;

afterEach(async () => {
  await killAllPeers();
  await fixture?.close();
  fixture = undefined;
});

/** The error of a refused initialize, with the versions the server offers in the message. */
const UNSUPPORTED = {
  code: -32022,
  message:
    'The upstream server does not support the protocol version 2026-07-28 of the bridge; it supports ' +
    '2099-01-01. See the Output channel of the server.',
  data: {
    cause: 'discover_failed',
    detail: 'server/discover: unsupported protocol version; the upstream server supports 2099-01-01',
  },
};

/** The lines of the scripted upstream that count its server/discover requests. */
const discoverLines = (peer: RawPeer): string[] =>
  upstreamStderr(peer).filter((line) => /^scripted-upstream: server\/discover \d+ asks for /.test(line));

/** An HTTP 400 with the -32022 body of the 2026-07-28 example, answering the request's id. */
function refusal(request: FixtureRequest, supported: string[]) {
  const id = (request.body as { id?: unknown } | undefined)?.id ?? null;
  return {
    status: 400,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported, requested: '2026-07-28' },
      },
    }),
  };
}

describe('version negotiation over stdio', () => {
  it('a first server/discover refused with -32022 and supported ["2026-07-28"] is retried once, and initialize succeeds', async () => {
    const bridge = startBridge({ upstream: scripted('version-retry') });
    const response = await handshakeWithin(bridge, STARTUP_MS);
    expect(response).toMatchObject({ id: 1, result: { serverInfo: { name: 'scripted' } } });
    expect(discoverLines(bridge)).toEqual([
      'scripted-upstream: server/discover 1 asks for 2026-07-28',
      'scripted-upstream: server/discover 2 asks for 2026-07-28',
    ]);
    bridge.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
    });
    expect(firstText(await bridge.nextFrame((frame) => frame.id === 2, STARTUP_MS))).toBe('hi');
  });

  it('-32022 with supported ["2099-01-01"] fails initialize with those versions named, after one request', async () => {
    const bridge = startBridge({ upstream: scripted('version-unsupported') });
    const response = await handshakeWithin(bridge, STARTUP_MS);
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: UNSUPPORTED });
    expect(discoverLines(bridge)).toHaveLength(1);
    expect(bridgeLines(bridge.stderr)).toContainEqual(
      'mcp-bridge-vscode: bridge: error: server/discover failed: the upstream server does not support the protocol version 2026-07-28; it supports 2099-01-01',
    );
  });
});

describe('version negotiation over Streamable HTTP', () => {
  it('a first server/discover refused with HTTP 400, -32022 and supported ["2026-07-28"] is retried once, and initialize succeeds', async () => {
    const server = (fixture = await startHttpFixture());
    let refused = 0;
    server.intercept = (request) => {
      if (request.method !== 'server/discover' || refused > 0) return undefined;
      refused += 1;
      return refusal(request, ['2026-07-28']);
    };
    const bridge = startUrlBridge(server.url);
    const response = await handshakeWithin(bridge, STARTUP_MS);
    expect(response).toHaveProperty('result.capabilities');
    expect(server.received.filter((request) => request.method === 'server/discover')).toHaveLength(2);
    expect(firstText(await callTool(bridge, 'echo', { text: 'over http' }))).toBe('over http');
  });

  it('HTTP 400 with -32022 and supported ["2099-01-01"] fails initialize with those versions named, never the URL', async () => {
    const server = (fixture = await startHttpFixture());
    server.intercept = (request) =>
      request.method === 'server/discover' ? refusal(request, ['2099-01-01']) : undefined;
    const bridge = startUrlBridge(server.url);
    const response = await handshakeWithin(bridge, STARTUP_MS);
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: UNSUPPORTED });
    expect(server.received.filter((request) => request.method === 'server/discover')).toHaveLength(1);
    expect(bridge.stderr.filter((line) => line.includes(String(server.port)))).toEqual([]);
  });
});
