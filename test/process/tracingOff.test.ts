/**
 * docs/observability.md#observability-switch: with tracing off the built bridge loads no
 * OpenTelemetry module through one tools/call; with tracing on it does. The process runs with
 * `--import dist/test/fixtures/recordModules.js` (test/fixtures/recordModules.ts), a loader hook (node:module register) that writes the
 * URL of every module the ESM loader resolves to a file. dist/bin/mcp-bridge.js is the esbuild
 * bundle, ESM, with the `@opentelemetry/*` packages outside it; it reaches them only by `import()`
 * (src/node/telemetry.ts), so any path to one, static or lazy, passes that hook.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE, GENERIC_BRIDGE, handshake, req } from '../helpers/bridgeProcess.js';
import { spawnPeer } from '../helpers/rawPeer.js';

const HOOK = fileURLToPath(new URL('../../dist/test/fixtures/recordModules.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tracing-off-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment without any OTEL_ variable of the machine, plus `extra`. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('OTEL_')) env[key] = value;
  return { ...env, ...extra };
}

/** Runs the bridge through initialize and one tools/call, ends it; the module URLs it resolved. */
async function modulesOfOneCall(name: string, extra: Record<string, string>): Promise<string[]> {
  const file = join(dir, `${name}.txt`);
  const peer = spawnPeer(
    process.execPath,
    ['--import', HOOK, GENERIC_BRIDGE, '--', process.execPath, FIXTURE],
    envWith({ RECORD_MODULES_FILE: file, ...extra }),
  );
  await handshake(peer);
  peer.send(req(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }));
  const reply = await peer.nextFrame((frame) => frame['id'] === 2);
  expect(reply['result']).toEqual({ content: [{ type: 'text', text: 'hi' }] });
  peer.closeStdin();
  expect((await peer.exit).code).toBe(0);
  return readFileSync(file, 'utf8').split('\n');
}

const otel = (urls: readonly string[]): string[] => urls.filter((url) => url.includes('/@opentelemetry/'));

describe('tracing switch of the built bridge', () => {
  it('loads no OpenTelemetry module with tracing off', async () => {
    const urls = await modulesOfOneCall('off', {});
    // The hook saw the bridge's own modules: an empty record would prove nothing.
    expect(urls.some((url) => url.endsWith('/dist/bin/mcp-bridge.js'))).toBe(true);
    expect(otel(urls)).toEqual([]);
  });

  it('loads OpenTelemetry with tracing on', async () => {
    const collector = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const port = (collector.address() as AddressInfo).port;
    try {
      const urls = await modulesOfOneCall('on', {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      });
      expect(otel(urls).some((url) => url.includes('/@opentelemetry/sdk-trace-base/'))).toBe(true);
    } finally {
      collector.close();
    }
  });
});
