/**
 * Item 8, memory of the bridge process alone (its upstream is another process): RSS over 100,000
 * sequential requests to the cheap echo upstream (a leak check), and a client that does not read
 * the bridge's stdout for a while (the bridge must pause its inputs, so memory stays bounded).
 */
import { callLine, echoCheck, echoLine, resultText } from '../frames.js';
import { latency } from '../measure.js';
import type { Load } from '../measure.js';
import { memoryMiB } from '../proc.js';
import type { MetricSpec } from '../report.js';
import { bridgeEcho } from '../targets.js';
import { interleave } from './common.js';
import type { Context } from './common.js';

export const LEAK = '7 memory: 100,000 sequential calls (cheap echo upstream)';
export const STALL = '7 memory: client not reading stdout';

export const RSS_FIRST: MetricSpec = { name: 'RSS after 10,000', unit: 'MiB', better: 'lower' };
export const RSS_LAST: MetricSpec = { name: 'RSS after 100,000', unit: 'MiB', better: 'lower' };
export const RSS_MAX: MetricSpec = { name: 'RSS max of samples', unit: 'MiB', better: 'lower' };
export const RSS_SLOPE: MetricSpec = {
  name: 'RSS growth after 20,000',
  unit: 'KiB per 10,000 calls',
  better: 'lower',
};
export const STALL_RSS: MetricSpec = { name: 'RSS max while not read', unit: 'MiB', better: 'lower' };
export const STALL_PEAK: MetricSpec = { name: 'peak RSS (VmHWM)', unit: 'MiB', better: 'lower' };

const LEAK_CALLS = 100_000;
const LEAK_STEP = 10_000;
const STALL_CALLS = 20_000;
const STALL_BYTES = 4_096;
const STALL_MS = 5_000;

/** Least-squares slope of y over x. */
function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function memory(ctx: Context): Promise<void> {
  // One round each: the leak check alone is 100,000 round trips.
  const once: Context = { ...ctx, settings: { ...ctx.settings, runs: 1 } };
  const load: Load = { line: (id) => echoLine('legacy', id), check: echoCheck };

  await interleave(once, LEAK, [bridgeEcho()], async (opened, target) => {
    const { client } = opened;
    const samples: number[] = [];
    const at: number[] = [];
    let wrong = 0;
    let missing = 0;
    let sample: string | undefined;
    const started = performance.now();
    for (let done = LEAK_STEP; done <= LEAK_CALLS; done += LEAK_STEP) {
      const step = await latency(client, load, LEAK_STEP, 120_000);
      wrong += step.wrong;
      missing += step.missing;
      sample ??= step.sample;
      samples.push(memoryMiB(client.pid).rss);
      at.push(done);
    }
    const seconds = (performance.now() - started) / 1000;
    const tail = samples.slice(1);
    const kibPerStep = slope(at.slice(1), tail) * LEAK_STEP * 1024;
    ctx.rec.add(LEAK, RSS_FIRST, target.name, samples[0]!);
    ctx.rec.add(LEAK, RSS_LAST, target.name, samples.at(-1)!);
    ctx.rec.add(LEAK, RSS_MAX, target.name, Math.max(...samples));
    ctx.rec.add(LEAK, RSS_SLOPE, target.name, kibPerStep);
    ctx.rec.count(LEAK, target.name, LEAK_CALLS, wrong, missing, sample);
    ctx.rec.note(
      `${LEAK}: VmRSS of the bridge every 10,000 calls (MiB): ${samples.map((s) => s.toFixed(1)).join(', ')}; ` +
        `one round of ${seconds.toFixed(1)} s, calls one after the other; the growth is the ` +
        'least-squares slope from 20,000 to 100,000 calls.',
    );
  });

  const big = `{"bytes":${STALL_BYTES}}`;
  const stallLoad: Load = {
    line: (id) => callLine('legacy', id, 'big', big),
    check: (frame) => resultText(frame)?.length === STALL_BYTES,
  };
  await interleave(once, STALL, [bridgeEcho()], async (opened, target) => {
    const { client } = opened;
    const stdout = client.child.stdout!;
    let answered = 0;
    let wrong = 0;
    let refused = 0;
    let sample: string | undefined;
    let all!: () => void;
    const allAnswered = new Promise<void>((resolve) => (all = resolve));
    stdout.pause();
    const before = memoryMiB(client.pid).rss;
    for (let i = 0; i < STALL_CALLS; i++) {
      const id = 9_000_000 + i;
      client.call(id, stallLoad.line(id), (frame) => {
        answered++;
        if (frame['error'] !== undefined) refused++;
        else if (!stallLoad.check(frame, id)) {
          wrong++;
          sample ??= JSON.stringify(frame).slice(0, 300);
        }
        if (answered === STALL_CALLS) all();
      });
    }
    let max = before;
    const until = performance.now() + STALL_MS;
    while (performance.now() < until) {
      await sleep(200);
      max = Math.max(max, memoryMiB(client.pid).rss);
    }
    stdout.resume();
    const timedOut = await Promise.race([allAnswered.then(() => false), sleep(120_000).then(() => true)]);
    const missing = STALL_CALLS - answered;
    ctx.rec.add(STALL, STALL_RSS, target.name, max);
    ctx.rec.add(STALL, STALL_PEAK, target.name, memoryMiB(client.pid).peak);
    ctx.rec.count(STALL, target.name, STALL_CALLS, wrong, missing, sample);
    ctx.rec.note(
      `${STALL}: ${STALL_CALLS} calls of the \`big\` tool (${STALL_BYTES}-byte results, ` +
        `${((STALL_CALLS * STALL_BYTES) / 2 ** 20).toFixed(0)} MiB of answers in all) written at once, ` +
        `stdout not read for ${STALL_MS / 1000} s (VmRSS sampled every 200 ms: ${before.toFixed(1)} MiB ` +
        `before, ${max.toFixed(1)} MiB at most), then read: ${answered} of ${STALL_CALLS} answers ` +
        `arrived${timedOut ? ' (timed out)' : ''}, ${refused} of them too_many_requests refusals, ` +
        `${wrong} wrong.`,
    );
  });
}
