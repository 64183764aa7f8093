/**
 * The container of `serve` (Dockerfile, docs/install.md#install-container), without a container
 * engine: its steps run as a script in a temporary directory (test/helpers/dockerfileSteps.ts:
 * `npm ci` from the repository's lock, the build, the copies into the last stage), and its
 * ENTRYPOINT, started with a token file of mode 0400 and the upstream as `docker run` arguments,
 * is a `serve` that answers `initialize` with the token and refuses it without; its health check
 * (`GET /healthz` with the token of the mounted file) passes, and fails without that token. The port of the ENTRYPOINT is taken as 0 (a free port), as
 * `docker run -p` maps it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../helpers/bridgeProcess.js';
import { runDockerfile } from '../helpers/dockerfileSteps.js';
import { spawnPeer } from '../helpers/rawPeer.js';
import { waitForValue } from '../helpers/waitFor.js';
import { INITIALIZE, POST_HEADERS, raw } from '../process/serveSupport.js';
import { ROOT } from './support.js';

const work = mkdtempSync(join(tmpdir(), 'dockerfile-'));
// A whole node_modules to delete: more than the default 10 s of a hook.
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

describe('Dockerfile', () => {
  it('builds, as a script, a serve that answers initialize with the token of the mounted file', async () => {
    const image = runDockerfile(ROOT, work);
    expect(image.user).toBe('node');
    expect(image.expose).toEqual(['8080']);
    expect(image.entrypoint).toEqual([
      'node',
      '/app/bin/mcp-bridge.js',
      'serve',
      '--listen',
      '0.0.0.0:8080',
      '--auth-token-file',
      '/run/secrets/mcp_bridge_token',
    ]);
    // The secret, as compose mounts it: a file readable by its owner only.
    const tokenFile = join(image.root, 'run/secrets/mcp_bridge_token');
    mkdirSync(join(image.root, 'run/secrets'), { recursive: true });
    writeFileSync(tokenFile, 'container-token-0123456789abcdef\n');
    chmodSync(tokenFile, 0o400);
    const inImage = (arg: string): string => (arg.startsWith('/') ? join(image.root, arg) : arg);
    const [node, ...args] = image.entrypoint;
    expect(node).toBe('node');
    const peer = spawnPeer(
      process.execPath,
      [
        ...args.map((arg) => (arg === '0.0.0.0:8080' ? '0.0.0.0:0' : inImage(arg))),
        '--',
        process.execPath,
        FIXTURE,
      ],
      { ...process.env, ...image.env },
    );
    try {
      const port = await waitForValue(
        () =>
          peer.stderr
            .map((line) => /^mcp-bridge: serve: listening on http:\/\/[^:]+:(\d+)\//.exec(line)?.[1])
            .find(Boolean),
        { what: 'the listening line', timeoutMs: 20_000 },
      );
      const refused = await raw(Number(port), 'POST', POST_HEADERS, INITIALIZE);
      expect(refused.status).toBe(401);
      const answered = await raw(
        Number(port),
        'POST',
        { ...POST_HEADERS, authorization: 'Bearer container-token-0123456789abcdef' },
        INITIALIZE,
      );
      expect(answered.status).toBe(200);
      expect(JSON.parse(answered.body)).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
      const [checkNode, ...check] = image.healthcheck ?? [];
      expect(checkNode).toBe('node');
      expect(check.join(' ')).toContain("path: '/healthz'");
      const runCheck = (tokenPath: string) =>
        spawnSync(
          process.execPath,
          check.map((arg) => arg.replace('8080', port).replace('/run/secrets/mcp_bridge_token', tokenPath)),
          { timeout: 20_000, env: { PATH: process.env['PATH'] ?? '' } },
        );
      expect(runCheck(tokenFile).status).toBe(0);
      // Without the mounted token the route answers 401, so the check fails (a TCP check would pass).
      expect(runCheck(join(image.root, 'run/secrets/missing')).status).toBe(1);
    } finally {
      peer.child.kill('SIGTERM');
    }
    expect((await peer.exit).code).toBe(0);
  }, 600_000);
});
