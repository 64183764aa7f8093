/**
 * Where the CPU of a forwarded call goes, from /proc (Linux), for one or more bridge builds in
 * interleaved rounds: per call, the user and system CPU time, the read and write system
 * calls and the voluntary and involuntary context switches of the bridge and of its upstream
 * child. System time and system calls show what batching writes can still save; voluntary
 * switches count the wake-ups of a process that waits for its peers.
 *
 *   node dist/bench/cost.js [--bridge <main.js>]... [--upstream fixture] [--rounds 4] [--calls 40000]
 *
 * Without --bridge, the bundle of this build. CPU times have the resolution of a clock tick
 * (10 ms): with 40,000 calls that is 0.00025 ms per call.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { echoCheck, echoLine } from './frames.js';
import { openTarget, throughput } from './measure.js';
import { clockTicks } from './proc.js';
import { PATHS, stdioUpstream } from './targets.js';

const { values } = parseArgs({
  options: {
    bridge: { type: 'string', multiple: true },
    upstream: { type: 'string' },
    rounds: { type: 'string' },
    calls: { type: 'string' },
  },
});
const bridges = values.bridge ?? [PATHS.bridge];
const upstream = stdioUpstream(values.upstream);
const rounds = Number(values.rounds ?? '4');
const calls = Number(values.calls ?? '40000');

/** Counters of one process so far. */
interface Counters {
  readonly userMs: number;
  readonly sysMs: number;
  readonly reads: number;
  readonly writes: number;
  readonly voluntary: number;
  readonly involuntary: number;
}
const KEYS = ['userMs', 'sysMs', 'reads', 'writes', 'voluntary', 'involuntary'] as const;

function counters(pid: number): Counters {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (text: string, key: string): number =>
    Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return {
    userMs: (Number(fields[11]) * 1000) / clockTicks(),
    sysMs: (Number(fields[12]) * 1000) / clockTicks(),
    reads: field(io, 'syscr'),
    writes: field(io, 'syscw'),
    voluntary: field(status, 'voluntary_ctxt_switches'),
    involuntary: field(status, 'nonvoluntary_ctxt_switches'),
  };
}

/** The first child of `pid` (the upstream the bridge started). */
function childOf(pid: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')[0];
    return first === undefined || first === '' ? undefined : Number(first);
  } catch {
    return undefined;
  }
}

const perCall = (after: Counters, before: Counters): Counters => {
  const out: Record<string, number> = {};
  for (const key of KEYS) out[key] = (after[key] - before[key]) / calls;
  return out as unknown as Counters;
};

interface Sample {
  readonly callsPerSecond: number;
  readonly bridge: Counters;
  readonly upstream: Counters | undefined;
}

async function measure(main: string): Promise<Sample> {
  const opened = await openTarget({
    name: 'bridge',
    era: 'legacy',
    spawn: { cmd: process.execPath, args: [main, '--', process.execPath, ...upstream] },
  });
  try {
    const pid = opened.client.pid;
    const load = { line: (id: number) => echoLine('legacy', id), check: echoCheck };
    await throughput(opened.client, load, 2_000, 128, 120_000);
    const child = childOf(pid);
    const bridgeBefore = counters(pid);
    const childBefore = child === undefined ? undefined : counters(child);
    const outcome = await throughput(opened.client, load, calls, 128, 120_000);
    if (outcome.wrong > 0 || outcome.missing > 0) {
      throw new Error(`${main}: ${outcome.wrong} wrong, ${outcome.missing} missing answers`);
    }
    return {
      callsPerSecond: outcome.callsPerSecond,
      bridge: perCall(counters(pid), bridgeBefore),
      upstream:
        child === undefined || childBefore === undefined ? undefined : perCall(counters(child), childBefore),
    };
  } finally {
    await opened.client.close(5_000);
  }
}

const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const row = (name: string, samples: readonly Counters[]): string =>
  `| ${name} | ${KEYS.map((key) => median(samples.map((s) => s[key])).toFixed(key.endsWith('Ms') ? 4 : 3)).join(' | ')} |`;

const results = new Map<string, Sample[]>(bridges.map((main) => [main, []]));
for (let round = 1; round <= rounds; round++) {
  for (const main of bridges) {
    process.stderr.write(`round ${round} of ${rounds}: ${main}\n`);
    results.get(main)?.push(await measure(main));
  }
}
process.stdout.write(
  `per call, median of ${rounds} rounds of ${calls} calls (${values.upstream === 'fixture' ? 'SDK fixture' : 'echo'} upstream)\n\n` +
    `| process | user ms | sys ms | reads | writes | voluntary switches | involuntary switches |\n` +
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n`,
);
for (const [main, samples] of results) {
  const calls = median(samples.map((s) => s.callsPerSecond)).toFixed(0);
  process.stdout.write(
    `${row(
      `bridge ${main} (${calls} calls/s)`,
      samples.map((s) => s.bridge),
    )}\n`,
  );
  const children = samples.flatMap((s) => (s.upstream === undefined ? [] : [s.upstream]));
  if (children.length > 0) process.stdout.write(`${row('  its upstream', children)}\n`);
}
process.exit(0);
