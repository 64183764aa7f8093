/**
 * Loopback and token hygiene of `mcp-bridge serve` (docs/serve.md#serve-loopback,
 * docs/serve.md#serve-token-limit, docs/serve.md#serve-rules): both loopback addresses on one
 * port, a start refused when another program holds the other one, wrong tokens limited per source
 * address, and one Host header only. Raw HTTP to the built executable; needs the build.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE, GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { killAllPeers, spawnPeer } from '../helpers/rawPeer.js';
import { waitForValue } from '../helpers/waitFor.js';
import { INITIALIZE, POST_HEADERS, WAIT_MS, listeningUrl, refusal, startServe } from './serveSupport.js';
import type { RawReply } from './serveSupport.js';

afterAll(killAllPeers);

/** One POST of initialize to `address` (an IP) with the given headers, Host included. */
function post(address: string, port: number, headers: Record<string, string>): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: address, port, method: 'POST', path: '/mcp', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(INITIALIZE);
  });
}

/** A request written byte for byte; resolves with the status line and the body. */
function rawBytes(port: number, head: string, body: string): Promise<{ status: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}\r\n\r\n${body}`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => {
      const [headPart = '', bodyPart = ''] = text.split('\r\n\r\n');
      resolve({ status: headPart.split('\r\n')[0] ?? '', body: bodyPart });
    });
    socket.on('error', reject);
  });
}

const listening = (server: Server, port: number, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, ipv6Only: host.includes(':') }, () =>
      resolve((server.address() as AddressInfo).port),
    );
  });

describe('loopback', () => {
  it('--listen localhost:0 answers on 127.0.0.1 and [::1] at one port, with the Host 127.0.0.1, [::1] or localhost', async () => {
    const serve = await startServe(['--listen', 'localhost:0']);
    expect(serve.url).toBe(`http://localhost:${serve.port}/mcp`);
    for (const [address, host] of [
      ['127.0.0.1', `127.0.0.1:${serve.port}`],
      ['::1', `[::1]:${serve.port}`],
      ['::1', `localhost:${serve.port}`],
      ['127.0.0.1', `localhost:${serve.port}`],
    ] as const) {
      const reply = await post(address, serve.port, { ...POST_HEADERS, host });
      expect([address, host, reply.status]).toEqual([address, host, 200]);
    }
  });

  it('refuses to start when another program holds [::1] at the port of --listen 127.0.0.1: exit code 1 and the line', async () => {
    const squatter = createServer();
    const port = await listening(squatter, 0, '::1');
    try {
      const peer = spawnPeer(process.execPath, [
        GENERIC_BRIDGE,
        'serve',
        '--listen',
        `127.0.0.1:${port}`,
        '--',
        process.execPath,
        FIXTURE,
      ]);
      // A server that wrongly starts writes its listening line instead of exiting.
      const outcome = await Promise.race([
        peer.exit.then((exit) => exit.code),
        listeningUrl(peer).then(() => 'listening'),
      ]);
      expect(outcome).toBe(1);
      expect(peer.stderr).toEqual([
        `mcp-bridge: serve: error: the server cannot listen on [::1]:${port} (EADDRINUSE), the other loopback address of 127.0.0.1: another program holds it, and a client that resolves localhost to it would reach that program`,
      ]);
    } finally {
      squatter.close();
    }
  });
});

describe('one Host header', () => {
  it('answers a request with two Host headers with 400 and duplicate_host', async () => {
    const serve = await startServe();
    const head = [
      'POST /mcp HTTP/1.1',
      `Host: 127.0.0.1:${serve.port}`,
      'Host: evil.example',
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      `Content-Length: ${Buffer.byteLength(INITIALIZE)}`,
      'Connection: close',
    ].join('\r\n');
    const reply = await rawBytes(serve.port, head, INITIALIZE);
    expect(reply.status).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(reply.body)).toEqual(
      refusal(-32000, 'The request must carry exactly one Host header.', 'duplicate_host'),
    );
  });
});

describe('wrong tokens', () => {
  it('answers 429 with Retry-After after 10 wrong tokens from one address, also to its right token; another address gets in', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'serve-throttle-'));
    const file = join(dir, 'token');
    const TOKEN = 'throttle-token-0123456789abcdef0123';
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const serve = await startServe(['--auth-token-file', file]);
    const v4 = { ...POST_HEADERS, host: `127.0.0.1:${serve.port}` };
    const statuses: number[] = [];
    for (let n = 0; n < 10; n += 1) {
      statuses.push(
        (await post('127.0.0.1', serve.port, { ...v4, authorization: `Bearer wrong-${n}` })).status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 401, 401]);
    const blocked = await post('127.0.0.1', serve.port, { ...v4, authorization: `Bearer ${TOKEN}` });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(JSON.parse(blocked.body)).toEqual(
      refusal(
        -32000,
        'Too many wrong bearer tokens came from this address; retry later.',
        'too_many_token_failures',
      ),
    );
    const other = await post('::1', serve.port, {
      ...POST_HEADERS,
      host: `[::1]:${serve.port}`,
      authorization: `Bearer ${TOKEN}`,
    });
    expect(other.status).toBe(200);
    expect(serve.peer.stderr.join('\n')).not.toContain('throttle-token');
  });
});

describe('the upstream child', () => {
  it('does not get MCP_BRIDGE_SERVE_TOKEN in its environment, and gets the rest', async () => {
    const TOKEN = 'child-env-token-0123456789abcdef0123';
    // The upstream: a wrapper that says which variables it got, then runs the fixture on its pipes.
    const wrapper = [
      "const seen = ['MCP_BRIDGE_SERVE_TOKEN', 'SERVE_TEST_MARK'].map((name) => `${name}=${name in process.env}`);",
      "process.stderr.write(`upstream environment: ${seen.join(' ')}\\n`);",
      "const child = require('node:child_process').spawn(process.execPath, [process.argv[1]], { stdio: 'inherit' });",
      "child.on('exit', (code) => process.exit(code ?? 1));",
    ].join(' ');
    const peer = spawnPeer(
      process.execPath,
      [GENERIC_BRIDGE, 'serve', '--', process.execPath, '-e', wrapper, FIXTURE],
      { ...process.env, MCP_BRIDGE_SERVE_TOKEN: TOKEN, SERVE_TEST_MARK: '1' },
    );
    const port = Number(new URL(await listeningUrl(peer)).port);
    const reply = await post('127.0.0.1', port, {
      ...POST_HEADERS,
      host: `127.0.0.1:${port}`,
      authorization: `Bearer ${TOKEN}`,
    });
    expect(reply.status).toBe(200);
    const line = await waitForValue(
      () => peer.stderr.find((text) => text.startsWith('upstream environment: ')),
      { what: 'the line of the upstream', timeoutMs: WAIT_MS },
    );
    expect(line).toBe('upstream environment: MCP_BRIDGE_SERVE_TOKEN=false SERVE_TEST_MARK=true');
    expect(peer.stderr.join('\n')).not.toContain(TOKEN);
  });
});
