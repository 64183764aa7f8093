/**
 * Helpers of the shared bridge's process tests (docs/shared.md): each test gets a runtime
 * directory of its own (XDG_RUNTIME_DIR), so tests never share a shared process, and the shared
 * process is killed when the test ends. Needs the build (`npm run build`).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { TestContext } from 'vitest';
import { FIXTURE, GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { killAllPeers, spawnPeer } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { waitForValue } from '../helpers/waitFor.js';

/** One test's runtime directory and what the shared process started in it wrote. */
export interface SharedPlace {
  /** XDG_RUNTIME_DIR: the socket is in `<runtime>/mcp-bridge/`. */
  readonly runtime: string;
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  /** The lines of `daemon.log`: the shared process's own lines and its upstreams' stderr. */
  readonly log: () => string[];
  /** The pid of the shared process, once it listens. */
  readonly daemonPid: () => Promise<number>;
}

/**
 * A runtime directory of its own for the test (mode 0755, as /run/user is not: here the barrier
 * against another user must be the `mcp-bridge` directory alone); the shared process it gets is
 * killed with SIGKILL and the directory removed when the test ends.
 */
export function sharedPlace(context: TestContext): SharedPlace {
  const runtime = mkdtempSync(join(tmpdir(), 'bridge-shared-'));
  chmodSync(runtime, 0o755);
  const dir = join(runtime, 'mcp-bridge');
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtime };
  delete env['MCP_BRIDGE_SHARED'];
  const log = (): string[] => {
    try {
      return readFileSync(join(dir, 'daemon.log'), 'utf8').split('\n');
    } catch {
      return [];
    }
  };
  const pids = (): number[] =>
    log().flatMap((line) => {
      const match = /the shared bridge listens \(pid (\d+)\)/.exec(line);
      return match === null ? [] : [Number(match[1])];
    });
  context.onTestFinished(() => {
    for (const pid of pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    rmSync(runtime, { recursive: true, force: true });
  });
  return {
    runtime,
    dir,
    env,
    log,
    daemonPid: () => waitForValue(() => pids().at(-1), { what: 'the shared process listening' }),
  };
}

/** `mcp-bridge --shared [args] -- <upstream>` in the test's runtime directory; killed with the test. */
export function startShim(
  context: TestContext,
  place: SharedPlace,
  options: { upstream?: readonly string[]; env?: NodeJS.ProcessEnv; bridgeArgs?: readonly string[] } = {},
): RawPeer {
  const upstream = options.upstream ?? [process.execPath, FIXTURE];
  const peer = spawnPeer(
    process.execPath,
    [GENERIC_BRIDGE, '--shared', ...(options.bridgeArgs ?? []), '--', ...upstream],
    { ...place.env, ...options.env },
  );
  context.onTestFinished(() => peer.kill());
  return peer;
}

/**
 * The fixture server behind a wrapper (run with `node -e`) that first appends its pid to the file
 * of its first argument: the file counts the upstream starts (test/helpers/bridgeProcess.ts
 * pidsInFile). The wrapper passes its stdio to the fixture and exits with it.
 */
const COUNTED_SOURCE = [
  "const { appendFileSync } = require('node:fs');",
  "const { spawn } = require('node:child_process');",
  "appendFileSync(process.argv[1], process.pid + '\\n');",
  "const child = spawn(process.execPath, process.argv.slice(2), { stdio: 'inherit' });",
  "process.on('SIGTERM', () => child.kill('SIGTERM'));",
  "child.on('exit', (code) => process.exit(code ?? 1));",
].join('\n');

/** The fixture as an upstream command whose starts are counted in `file`. */
export const countedFixture = (file: string): string[] => [
  process.execPath,
  '-e',
  COUNTED_SOURCE,
  file,
  FIXTURE,
];

/** Lines of the log that match. */
export const logCount = (place: SharedPlace, text: string): number =>
  place.log().filter((line) => line.includes(text)).length;

/** How long a start may take on a loaded machine (Node three times: shim, shared process, upstream). */
export const SHARED_STARTUP_MS = 60_000;

/**
 * The pid files of one test file: a temporary directory made before its tests and removed after
 * them, once every peer is killed. Returns the path of a new pid file.
 */
export function pidFilesOfFile(prefix: string): () => string {
  let dir = '';
  let files = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await killAllPeers();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => join(dir, `pids-${++files}`);
}
