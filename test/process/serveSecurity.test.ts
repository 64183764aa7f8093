/**
 * The security checks of `mcp-bridge serve` (docs/serve.md#serve-security): Host (DNS
 * rebinding), Origin, CORS for `--allow-origin`, the bearer token, and the token a listen address
 * other than loopback needs. Raw HTTP requests to the built executable; needs the build.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { killAllPeers, spawnPeer } from '../helpers/rawPeer.js';
import { INITIALIZE, POST_HEADERS, raw, refusal, startServe } from './serveSupport.js';
import type { ServeProcess } from './serveSupport.js';

afterAll(killAllPeers);

describe('security', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(['--allow-origin', 'https://app.example']);
  });

  it('refuses a Host that is not loopback with the bound port (DNS rebinding) with 403', async () => {
    for (const host of ['evil.example', `evil.example:${serve.port}`, 'localhost:1']) {
      const reply = await raw(serve.port, 'POST', { ...POST_HEADERS, host }, INITIALIZE);
      expect(reply.status).toBe(403);
      expect(JSON.parse(reply.body)).toEqual(
        refusal(-32000, 'The Host header does not name this server.', 'forbidden_host'),
      );
    }
    const ok = await raw(
      serve.port,
      'POST',
      { ...POST_HEADERS, host: `localhost:${serve.port}` },
      INITIALIZE,
    );
    expect(ok.status).toBe(200);
  });

  it('refuses an Origin that is neither this server nor --allow-origin with 403', async () => {
    const reply = await raw(
      serve.port,
      'POST',
      { ...POST_HEADERS, origin: 'http://evil.example' },
      INITIALIZE,
    );
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body)).toEqual(
      refusal(-32000, 'The Origin of the request is not allowed.', 'forbidden_origin'),
    );
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends CORS headers to an --allow-origin origin only, and exposes Mcp-Session-Id', async () => {
    const allowed = await raw(
      serve.port,
      'POST',
      { ...POST_HEADERS, origin: 'https://app.example' },
      INITIALIZE,
    );
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(allowed.headers['access-control-expose-headers']).toBe('Mcp-Session-Id');
    const preflight = await raw(serve.port, 'OPTIONS', {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toContain('Mcp-Session-Id');
    const own = await raw(
      serve.port,
      'POST',
      { ...POST_HEADERS, origin: `http://127.0.0.1:${serve.port}` },
      INITIALIZE,
    );
    expect(own.status).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBeUndefined();
    const stranger = await raw(serve.port, 'OPTIONS', { origin: `http://127.0.0.1:${serve.port}` });
    expect(stranger.status).toBe(403);
  });

  it('requires the bearer token of --auth-token-file, also on loopback', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'serve-token-'));
    const file = join(dir, 'token');
    writeFileSync(file, 's3cret-token-0123456789abcdef0123\n', { mode: 0o600 });
    const guarded = await startServe(['--auth-token-file', file]);
    const none = await raw(guarded.port, 'POST', POST_HEADERS, INITIALIZE);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect(JSON.parse(none.body)).toEqual(
      refusal(-32000, 'The request lacks the bearer token of this server.', 'unauthorized'),
    );
    const wrong = await raw(
      guarded.port,
      'POST',
      { ...POST_HEADERS, authorization: 'Bearer s3cret-token-0123456789abcdef0124' },
      INITIALIZE,
    );
    expect(wrong.status).toBe(401);
    const right = await raw(
      guarded.port,
      'POST',
      { ...POST_HEADERS, authorization: 'Bearer s3cret-token-0123456789abcdef0123' },
      INITIALIZE,
    );
    expect(right.status).toBe(200);
    expect(guarded.peer.stderr.join('\n')).not.toContain('s3cret');
  });

  it('refuses a listen address other than loopback without a token: exit code 2', async () => {
    const env = { ...process.env };
    delete env['MCP_BRIDGE_SERVE_TOKEN'];
    const peer = spawnPeer(
      process.execPath,
      [GENERIC_BRIDGE, 'serve', '--listen', '0.0.0.0:0', '--', 'node', 'x.js'],
      env,
    );
    const exit = await peer.exit;
    expect(exit.code).toBe(2);
    expect(peer.stderr[0]).toBe(
      'mcp-bridge: bridge: error: a listen address other than loopback needs a token: give --auth-token-file, or set MCP_BRIDGE_SERVE_TOKEN',
    );
  });
});
