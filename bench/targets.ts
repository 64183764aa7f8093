/**
 * The processes the benchmarks compare, as command lines (no shell). Paths are resolved from the
 * built file, so `node dist/bench/run.js` works from any directory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Target } from './measure.js';

const DIST = fileURLToPath(new URL('../', import.meta.url));
const ROOT = join(DIST, '..');
const NODE = process.execPath;

export const PATHS = {
  // The executable as it ships: the bundle of `npm run build` (scripts/bundle.ts).
  bridge: join(DIST, 'bin/mcp-bridge-vscode.js'),
  scripted: join(DIST, 'test/fixtures/scriptedUpstream.js'),
  fixture: join(DIST, 'test/fixtures/fixtureServer.js'),
  dualEra: join(DIST, 'bench/servers/dualEra.js'),
  embedded: join(DIST, 'test/fixtures/embeddedServer.js'),
  trivial: join(DIST, 'bench/servers/trivialInit.js'),
  spawner: join(DIST, 'bench/servers/spawner.js'),
  sdkPaths: join(DIST, 'bench/sdkPaths.js'),
  http: join(DIST, 'bench/servers/http.js'),
  mcpRemote: join(ROOT, 'node_modules/mcp-remote/dist/proxy.js'),
};

const node = (...args: string[]) => ({ cmd: NODE, args });
const many = (tools: number): string[] => (tools > 0 ? ['--many-tools', String(tools)] : []);
const ECHO = [PATHS.scripted, '--mode', 'echo'];

/**
 * The script and arguments of a stdio upstream the before/after tools name with `--upstream`:
 * the SDK fixture for `fixture`, else the cheap echo upstream.
 */
export const stdioUpstream = (name: string | undefined): readonly string[] =>
  name === 'fixture' ? [PATHS.fixture] : ECHO;

/** The raw 2026-07-28 echo upstream, spoken to directly: the floor. */
export const echoDirect = (): Target => ({ name: 'direct (floor)', era: 'modern', spawn: node(...ECHO) });

export const bridgeEcho = (): Target => ({
  name: 'bridge',
  era: 'legacy',
  spawn: node(PATHS.bridge, '--', NODE, ...ECHO),
});

/** The SDK 2.x fixture (2026-07-28 only), spoken to directly by a modern client. */
export const fixtureDirect = (tools = 0, name = 'SDK fixture direct'): Target => ({
  name,
  era: 'modern',
  spawn: node(PATHS.fixture, ...many(tools)),
});

export const bridgeFixture = (tools = 0): Target => ({
  name: 'bridge → fixture',
  era: 'legacy',
  spawn: node(PATHS.bridge, '--', NODE, PATHS.fixture, ...many(tools)),
});

/** The same fixture served dual-era in-process by the SDK, with a legacy client. */
export const dualEra = (tools = 0): Target => ({
  name: 'SDK dual-era in-process',
  era: 'legacy',
  spawn: node(PATHS.dualEra, ...many(tools)),
});

/** The same fixture served dual-era through the bridge's `serveDualEra` (embedded mode). */
export const embedded = (): Target => ({
  name: 'serveDualEra (embedded)',
  era: 'legacy',
  spawn: node(PATHS.embedded),
});

export const trivialInit = (): Target => ({ name: 'node floor', era: 'legacy', spawn: node(PATHS.trivial) });

/**
 * A node process that only starts the SDK dual-era fixture as its child on the same stdio: the
 * start-up floor of any node bridge in front of that server (bench/servers/spawner.ts).
 */
export const spawnerFloor = (): Target => ({
  name: 'node spawner → SDK dual-era (floor of a node bridge)',
  era: 'legacy',
  spawn: node(PATHS.spawner, PATHS.dualEra),
});

export const bridgeUrl = (url: string): Target => ({
  name: 'bridge (URL)',
  era: 'legacy',
  spawn: node(PATHS.bridge, url),
});

let configDir: string | undefined;

/** mcp-remote 0.15.1 in its dual-era mode, run by node on its bin file. */
export const mcpRemote = (url: string): Target => {
  configDir ??= mkdtempSync(join(tmpdir(), 'bench-mcp-remote-'));
  return {
    name: 'mcp-remote --protocol auto',
    era: 'legacy',
    spawn: {
      cmd: NODE,
      args: [PATHS.mcpRemote, url, '--protocol', 'auto', '--transport', 'http-only', '--silent'],
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir },
    },
  };
};

export interface HttpServer {
  readonly url: string;
  readonly pid: number;
  close(): void;
}

/** Starts `dist/bench/servers/http.js <kind>` and waits for its URL. */
export function startHttpServer(kind: 'cheap' | 'fixture'): Promise<HttpServer> {
  const child = spawn(NODE, [PATHS.http, kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let text = '';
    child.once('exit', (code) => reject(new Error(`the ${kind} HTTP server exited with ${String(code)}`)));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      text += chunk;
      const nl = text.indexOf('\n');
      if (nl === -1) return;
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      resolve({
        url: text.slice(0, nl),
        pid: child.pid ?? 0,
        close: () => {
          child.stdin.end();
          child.kill();
        },
      });
    });
  });
}
