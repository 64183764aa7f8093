/**
 * A CPU profile of the bridge under pipelined calls: runs the built executable with
 * `node --cpu-prof`, drives it with the raw client (warm-up, then pipelined `tools/call echo`),
 * and prints the self time of the profile by function and by file, as shares of the busy time
 * (the whole profile, start-up included, without idle). `--upstream http` runs the bridge in its URL
 * form against the cheap 2026-07-28 HTTP upstream (bench/servers/http.js cheap, its own process).
 *
 *   node dist/bench/profile.js [--upstream fixture|http] [--calls 20000] [--bridge <main.js>] [--dir /tmp/cpu-prof]
 *   node dist/bench/profile.js --alone --bridge dist/test/fixtures/embeddedServer.js  # a server, no upstream
 *   node dist/bench/profile.js --summary <file.cpuprofile>
 */
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { echoCheck, echoLine } from './frames.js';
import { openTarget, throughput } from './measure.js';
import { cpuMs } from './proc.js';
import { PATHS, startHttpServer } from './targets.js';
import type { HttpServer } from './targets.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
}

const { values } = parseArgs({
  options: {
    upstream: { type: 'string' },
    calls: { type: 'string' },
    bridge: { type: 'string' },
    dir: { type: 'string' },
    summary: { type: 'string' },
    top: { type: 'string' },
    interval: { type: 'string' },
    alone: { type: 'boolean' },
  },
});
const top = Number(values.top ?? '25');

/** Self time of a profile by key, in ms, with the busy total. */
function selfTimes(
  profile: Profile,
  key: (node: ProfileNode) => string,
): { busy: number; rows: [string, number][] } {
  const total = profile.samples.length;
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(total, 1);
  const sums = new Map<string, number>();
  let idle = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (node.callFrame.functionName === '(idle)') {
      idle += hits;
      continue;
    }
    const k = key(node);
    sums.set(k, (sums.get(k) ?? 0) + hits);
  }
  const rows = [...sums]
    .map(([k, hits]): [string, number] => [k, hits * msPerSample])
    .sort((a, b) => b[1] - a[1]);
  return { busy: (total - idle) * msPerSample, rows };
}

const fileOf = (node: ProfileNode): string => {
  const { url, functionName } = node.callFrame;
  if (url === '') return functionName.startsWith('(') ? functionName : `(native) ${functionName}`;
  const rx = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (rx !== null) return rx[1]!;
  if (url.startsWith('node:')) return url;
  return basename(url);
};
const functionOf = (node: ProfileNode): string =>
  `${node.callFrame.functionName || '(anonymous)'} ${fileOf(node)}:${node.callFrame.lineNumber + 1}`;

function summarise(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  for (const [title, key] of [
    ['file', fileOf],
    ['function', functionOf],
  ] as const) {
    const { busy, rows } = selfTimes(profile, key);
    process.stdout.write(`\nself time by ${title} (busy ${busy.toFixed(0)} ms)\n`);
    for (const [k, ms] of rows.slice(0, top)) {
      process.stdout.write(
        `${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${k}\n`,
      );
    }
  }
}

if (values.summary !== undefined) {
  summarise(values.summary);
} else {
  const dir = values.dir ?? '/tmp/cpu-prof';
  mkdirSync(dir, { recursive: true });
  const calls = Number(values.calls ?? '20000');
  const server: HttpServer | undefined =
    values.upstream === 'http' ? await startHttpServer('cheap') : undefined;
  const upstream =
    values.alone === true
      ? []
      : server !== undefined
        ? [server.url]
        : values.upstream === 'fixture'
          ? ['--', process.execPath, PATHS.fixture]
          : ['--', process.execPath, PATHS.scripted, '--mode', 'echo'];
  const main = values.bridge ?? PATHS.bridge;
  const started = Date.now();
  const opened = await openTarget({
    name: 'bridge',
    era: 'legacy',
    spawn: {
      cmd: process.execPath,
      args: [
        '--cpu-prof',
        '--cpu-prof-interval',
        values.interval ?? '100',
        '--cpu-prof-dir',
        dir,
        main,
        ...upstream,
      ],
    },
  });
  const load = { line: (id: number) => echoLine('legacy', id), check: echoCheck };
  await throughput(opened.client, load, 2_000, 128, 120_000);
  const before = cpuMs(opened.client.pid);
  const tp = await throughput(opened.client, load, calls, 128, 120_000);
  const cpu = cpuMs(opened.client.pid) - before;
  process.stdout.write(
    `${calls} calls: ${tp.callsPerSecond.toFixed(0)} calls/s, bridge CPU ${(cpu / calls).toFixed(4)} ms/call, wrong ${tp.wrong}, missing ${tp.missing}\n`,
  );
  await opened.client.close(5_000);
  server?.close();
  const newest = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).mtimeMs >= started)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (newest === undefined) process.stdout.write('no profile written\n');
  else {
    process.stdout.write(`profile: ${newest}\n`);
    summarise(newest);
  }
}
process.exit(0);
