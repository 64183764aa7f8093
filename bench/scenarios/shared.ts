/**
 * The shared bridge (docs/shared.md), three measurements of one run:
 * - start-up: spawn → `initialize` result of a shim joining a warm upstream (another shim holds it,
 *   its listen stream open, so the known discover result answers: docs/shared.md#shared-warm),
 *   against the stdio bridge and against the server started alone (its own `initialize` answer);
 * - memory: the VmRSS sum of the process trees of 20 shims plus the shared process (with its one
 *   upstream), against 20 stdio bridges with their 20 upstreams;
 * - calls/s and p50 through one shim against the stdio bridge (cheap echo upstream).
 * Each run has a runtime directory of its own (XDG_RUNTIME_DIR), so it never joins another shared
 * process; `shared stop` ends its shared process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { echoCheck, echoLine } from '../frames.js';
import { openTarget } from '../measure.js';
import type { Opened, Target } from '../measure.js';
import { treeRssMiB } from '../proc.js';
import { START } from '../report.js';
import type { MetricSpec } from '../report.js';
import { PATHS, bridgeEcho, bridgeFixture, dualEra } from '../targets.js';
import { interleave, measureCalls, scaledStdioSizes } from './common.js';
import type { Context } from './common.js';

export const SHARED_START = '9 shared: start-up, shim joining a warm upstream (SDK fixture)';
export const SHARED_RSS = '9 shared: memory of 20 clients (SDK fixture)';
export const SHARED_CALLS = '9 shared: calls through one shim (cheap echo upstream)';
export const TREE_RSS: MetricSpec = { name: 'VmRSS sum of the process trees', unit: 'MiB', better: 'lower' };
export const SERVER_ALONE = 'SDK dual-era in-process';
export const WARM_SHIM = 'shim → warm fixture';
export const STDIO_TREES = '20 stdio bridges + 20 upstreams';
export const SHARED_TREES = '20 shims + shared process + 1 upstream';

const CLIENTS = 20;
const NODE = process.execPath;
const ECHO = [PATHS.scripted, '--mode', 'echo'];

/** The runtime directory of this run's shared process, and its env for every shim. */
interface Place {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  /** The pid of the shared process, from its daemon.log. */
  readonly daemonPid: () => number | undefined;
  readonly stop: () => void;
}

function sharedPlace(): Place {
  const dir = mkdtempSync(join(tmpdir(), 'bench-shared-'));
  const env = { ...process.env, XDG_RUNTIME_DIR: dir, MCP_BRIDGE_SHARED: '1' };
  const daemonPid = (): number | undefined => {
    try {
      const log = readFileSync(join(dir, 'mcp-bridge', 'daemon.log'), 'utf8');
      const all = [...log.matchAll(/the shared bridge listens \(pid (\d+)\)/g)];
      return all.length === 0 ? undefined : Number(all.at(-1)![1]);
    } catch {
      return undefined;
    }
  };
  const stop = (): void => {
    spawnSync(NODE, [PATHS.bridge, 'shared', 'stop'], { env, stdio: 'ignore', timeout: 30_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, env, daemonPid, stop };
}

const shim = (place: Place, name: string, upstream: readonly string[]): Target => ({
  name,
  era: 'legacy',
  spawn: { cmd: NODE, args: [PATHS.bridge, '--', ...upstream], env: place.env },
});

export async function sharedBridge(ctx: Context): Promise<void> {
  await warmStart(ctx);
  await memoryOfClients(ctx);
  await callsThroughShim(ctx);
}

async function warmStart(ctx: Context): Promise<void> {
  const place = sharedPlace();
  const more: Context = {
    ...ctx,
    settings: { ...ctx.settings, runs: ctx.settings.runs * ctx.settings.startsPerRun },
  };
  const warm = shim(place, WARM_SHIM, [NODE, PATHS.fixture]);
  // The holder starts the shared process and the upstream, and keeps its listen stream open.
  const holder = await openTarget(warm);
  try {
    const targets = [{ ...dualEra(), name: SERVER_ALONE }, bridgeFixture(), warm];
    await interleave(
      more,
      SHARED_START,
      targets,
      (opened, target, record) => {
        if (record) ctx.rec.add(SHARED_START, START, target.name, opened.startMs);
        return Promise.resolve();
      },
      true,
    );
  } finally {
    await holder.client.close();
    place.stop();
  }
}

/** Opens `count` clients of `target` at once; their handshakes done. */
const openMany = (target: Target, count: number): Promise<Opened[]> =>
  Promise.all(Array.from({ length: count }, () => openTarget(target, 120_000)));

async function memoryOfClients(ctx: Context): Promise<void> {
  for (let run = 1; run <= ctx.settings.runs; run++) {
    const stdio = await openMany(bridgeFixture(), CLIENTS);
    const stdioMiB = treeRssMiB(stdio.map((opened) => opened.client.pid));
    await Promise.all(stdio.map((opened) => opened.client.close()));
    const place = sharedPlace();
    try {
      const shims = await openMany(shim(place, 'shim', [NODE, PATHS.fixture]), CLIENTS);
      const daemon = place.daemonPid();
      const sharedMiB = treeRssMiB([
        ...shims.map((opened) => opened.client.pid),
        ...(daemon === undefined ? [] : [daemon]),
      ]);
      await Promise.all(shims.map((opened) => opened.client.close()));
      ctx.rec.add(SHARED_RSS, TREE_RSS, STDIO_TREES, stdioMiB);
      ctx.rec.add(SHARED_RSS, TREE_RSS, SHARED_TREES, daemon === undefined ? NaN : sharedMiB);
      ctx.log(`  ${SHARED_RSS}: round ${run}: ${stdioMiB.toFixed(0)} MiB vs ${sharedMiB.toFixed(0)} MiB`);
    } finally {
      place.stop();
    }
  }
  ctx.rec.note(
    `${SHARED_RSS}: ${CLIENTS} clients opened at once (initialize and notifications/initialized), then ` +
      'the VmRSS of /proc/<pid>/status summed over each client process and its descendants (each ' +
      'stdio bridge and its fixture; each shim, and the shared process with its one fixture).',
  );
}

async function callsThroughShim(ctx: Context): Promise<void> {
  const place = sharedPlace();
  const load = { line: (id: number) => echoLine('legacy', id), check: echoCheck };
  const sizes = scaledStdioSizes(ctx);
  try {
    await interleave(
      ctx,
      SHARED_CALLS,
      [bridgeEcho(), shim(place, 'shim', [NODE, ...ECHO])],
      (opened, target, record) => measureCalls(ctx, SHARED_CALLS, opened, target, load, sizes, record),
    );
  } finally {
    place.stop();
  }
  ctx.rec.note(
    `${SHARED_CALLS}: CPU per call of the shim is the shim's own process; the shared process's share is not in it.`,
  );
}
