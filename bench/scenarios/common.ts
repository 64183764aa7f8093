/**
 * What every scenario shares: the settings of a run, the interleaved loop over targets
 * (A B A B …, after one warm-up round that is not recorded), and the standard call measurement.
 */
import { throughput, latency, openTarget } from '../measure.js';
import type { Load, Opened, Target } from '../measure.js';
import { cpuMs, syscalls } from '../proc.js';
import { CPU, P50, P90, P99, THROUGHPUT, WRITES } from '../report.js';
import type { Recorder } from '../report.js';
import { quantileSorted, sorted } from '../stats.js';

export interface Settings {
  /** Recorded rounds per scenario. */
  readonly runs: number;
  /** Start-up spawns per target and round. */
  readonly startsPerRun: number;
  /** Multiplies the request counts (1 by default, more with --full). */
  readonly scale: number;
}

export interface Context {
  readonly rec: Recorder;
  readonly settings: Settings;
  readonly log: (text: string) => void;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Runs `body` for each target in turn, `runs` times (A B A B …). Each call gets a fresh process
 * of the target, opened with its handshake; `body` warms it up before it measures. With
 * `warmupRound`, a first round warms the machine (file cache) and is not recorded.
 */
export async function interleave(
  ctx: Context,
  scenario: string,
  targets: readonly Target[],
  body: (opened: Opened, target: Target, record: boolean) => Promise<void>,
  warmupRound = false,
): Promise<void> {
  const failed = new Set<string>();
  const times: string[] = [];
  for (let run = warmupRound ? 0 : 1; run <= ctx.settings.runs; run++) {
    for (const target of targets) {
      const record = run > 0;
      const started = performance.now();
      let opened: Opened;
      try {
        opened = await openTarget(target);
      } catch (error) {
        if (!failed.has(target.name)) {
          failed.add(target.name);
          ctx.rec.note(`${scenario}: ${target.name} failed its handshake: ${message(error)}`);
          ctx.log(`  ${target.name}: handshake failed: ${message(error)}`);
        }
        if (record) ctx.rec.count(scenario, target.name, 1, 0, 1);
        continue;
      }
      try {
        await body(opened, target, record);
      } catch (error) {
        ctx.rec.note(`${scenario}: ${target.name}: ${message(error)}`);
      } finally {
        await opened.client.close();
      }
      times.push(`${target.name} ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    const round = run === 0 ? 'warm-up' : `${run} of ${ctx.settings.runs}`;
    ctx.log(`  ${scenario}: round ${round}: ${times.splice(0).join(', ')}`);
  }
}

export interface CallSizes {
  readonly warmup: number;
  readonly count: number;
  readonly window: number;
  readonly sequential: number;
  readonly timeoutMs: number;
}

/**
 * The sizes of a stdio bridge's calls in the bench and in `ab.js` (before `--scale`): a warm-up of
 * 2,000 calls, then 10,000 measured with 128 in flight, then 2,000 one at a time.
 * `callInstructions.js --ab` counts the same warm-up and measured calls.
 */
export const STDIO_CALL_SIZES: CallSizes = Object.freeze({
  warmup: 2_000,
  count: 10_000,
  window: 128,
  sequential: 2_000,
  timeoutMs: 120_000,
});

/** STDIO_CALL_SIZES with `--scale` applied to the measured and sequential calls. */
export const scaledStdioSizes = (ctx: Context): CallSizes => ({
  ...STDIO_CALL_SIZES,
  count: scaled(ctx, STDIO_CALL_SIZES.count),
  sequential: scaled(ctx, STDIO_CALL_SIZES.sequential),
});

/**
 * Warm-up, then pipelined throughput (with the CPU time and write system calls of the target's own
 * process around it), then sequential latency. Records throughput, CPU and writes per call, p50,
 * p90, p99 and the errors.
 */
export async function measureCalls(
  ctx: Context,
  scenario: string,
  opened: Opened,
  target: Target,
  load: Load,
  sizes: CallSizes,
  record: boolean,
): Promise<void> {
  const { client } = opened;
  await throughput(client, load, sizes.warmup, sizes.window, sizes.timeoutMs);
  const before = cpuMs(client.pid);
  const writesBefore = syscalls(client.pid).writes;
  const tp = await throughput(client, load, sizes.count, sizes.window, sizes.timeoutMs);
  const cpu = cpuMs(client.pid) - before;
  const writes = syscalls(client.pid).writes - writesBefore;
  const lat = await latency(client, load, sizes.sequential, sizes.timeoutMs);
  if (!record) return;
  const { rec } = ctx;
  rec.add(scenario, THROUGHPUT, target.name, tp.missing === 0 ? tp.callsPerSecond : NaN);
  rec.add(scenario, CPU, target.name, cpu / sizes.count);
  rec.add(scenario, WRITES, target.name, writes / sizes.count);
  const s = sorted(lat.samples);
  rec.add(scenario, P50, target.name, quantileSorted(s, 0.5));
  rec.add(scenario, P90, target.name, quantileSorted(s, 0.9));
  rec.add(scenario, P99, target.name, quantileSorted(s, 0.99));
  rec.count(scenario, target.name, sizes.count, tp.wrong, tp.missing, tp.sample);
  rec.count(scenario, target.name, sizes.sequential, lat.wrong, lat.missing, lat.sample);
}

/** Scales a request count, at least 1. */
export const scaled = (ctx: Context, count: number): number =>
  Math.max(1, Math.round(count * ctx.settings.scale));
