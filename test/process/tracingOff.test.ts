/**
 * docs/observability.md#observability-switch: with tracing off the built bridge loads no
 * OpenTelemetry module through one tools/call; with tracing on it does. Every Node process of a
 * call runs with `NODE_OPTIONS=--import=dist/test/fixtures/recordModules.js`
 * (test/fixtures/recordModules.ts), a loader hook (node:module register) that writes the URL of
 * every module the ESM loader resolves to a file of its process. The file read is that of the
 * process that runs the bridge: the bridge itself, or in the `--shared` run
 * (docs/testing.md#testing-shared-matrix) the shared process of its shim, which starts the
 * telemetry of its key (docs/shared.md#shared-telemetry); the shim loads none
 * (docs/shared.md#shared-switch). dist/bin/mcp-bridge.js is the esbuild bundle, ESM, with the
 * `@opentelemetry/*` packages outside it; it reaches them only by `import()`
 * (src/node/telemetry.ts), so any path to one, static or lazy, passes that hook.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE, GENERIC_BRIDGE, handshake, req } from '../helpers/bridgeProcess.js';
import { spawnPeer } from '../helpers/rawPeer.js';
import { bridgeProcess } from '../helpers/sharedMatrix.js';

const HOOK = fileURLToPath(new URL('../../dist/test/fixtures/recordModules.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tracing-off-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment without any OTEL_ variable of the machine, with the hook, plus `extra`. */
function envWith(modules: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('OTEL_')) env[key] = value;
  const nodeOptions = `${env['NODE_OPTIONS'] ?? ''} --import=${HOOK}`.trim();
  return { ...env, NODE_OPTIONS: nodeOptions, RECORD_MODULES_DIR: modules, ...extra };
}

/** Runs the bridge through initialize and one tools/call, ends it; the module URLs it resolved. */
async function modulesOfOneCall(name: string, extra: Record<string, string>): Promise<string[]> {
  const modules = join(dir, name);
  mkdirSync(modules);
  const peer = spawnPeer(
    process.execPath,
    [GENERIC_BRIDGE, '--', process.execPath, FIXTURE],
    envWith(modules, extra),
  );
  await handshake(peer);
  peer.send(req(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }));
  const reply = await peer.nextFrame((frame) => frame['id'] === 2);
  expect(reply['result']).toEqual({ content: [{ type: 'text', text: 'hi' }] });
  peer.closeStdin();
  expect((await peer.exit).code).toBe(0);
  const bridge = bridgeProcess(peer.child.pid!);
  expect(bridge).toBeDefined();
  return readFileSync(join(modules, `${String(bridge)}.txt`), 'utf8').split('\n');
}

const otel = (urls: readonly string[]): string[] => urls.filter((url) => url.includes('/@opentelemetry/'));

describe('tracing switch of the built bridge', () => {
  it('loads no OpenTelemetry module with tracing off', async () => {
    const urls = await modulesOfOneCall('off', {});
    // The hook saw the bridge's own modules: an empty record would prove nothing.
    expect(urls.some((url) => url.endsWith('/dist/bin/mcp-bridge.js'))).toBe(true);
    expect(otel(urls)).toEqual([]);
  });

  it('writes the warning of an exporter it cannot serve to the stderr of the client, and loads nothing', async () => {
    const modules = join(dir, 'zipkin');
    mkdirSync(modules);
    const peer = spawnPeer(
      process.execPath,
      [GENERIC_BRIDGE, '--', process.execPath, FIXTURE],
      envWith(modules, { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_METRICS_EXPORTER: 'none' }),
    );
    await handshake(peer);
    peer.closeStdin();
    expect((await peer.exit).code).toBe(0);
    // The bridge's own lines (the upstream's stderr goes to daemon.log with --shared).
    expect(peer.stderr.filter((line) => line.startsWith('mcp-bridge: '))).toEqual([
      'mcp-bridge: bridge: warning: tracing is off: OTEL_TRACES_EXPORTER=zipkin is not supported (only otlp)',
    ]);
    const urls = readFileSync(join(modules, `${String(bridgeProcess(peer.child.pid!))}.txt`), 'utf8').split(
      '\n',
    );
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
