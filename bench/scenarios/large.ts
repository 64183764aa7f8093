/**
 * Item 6: large messages. `tools/list` with 1,000 tools (SDK fixture `--many-tools 1000`), and a
 * 16 MiB tool result (the `big` tool of the cheap upstreams, stdio and HTTP).
 */
import { callLine, requestLine, resultText } from '../frames.js';
import type { Era } from '../frames.js';
import { latency } from '../measure.js';
import type { Load, Target } from '../measure.js';
import { memoryMiB } from '../proc.js';
import { PEAK_RSS } from '../report.js';
import type { MetricSpec } from '../report.js';
import { quantileSorted, sorted } from '../stats.js';
import {
  bridgeEcho,
  bridgeFixture,
  bridgeUrl,
  dualEra,
  echoDirect,
  fixtureDirect,
  mcpRemote,
  startHttpServer,
} from '../targets.js';
import { interleave, scaled } from './common.js';
import type { Context } from './common.js';

export const LIST = '5 tools/list, 1,000 tools';
export const BIG = '5 16 MiB tool result (stdio)';
export const BIG_HTTP = '5 16 MiB tool result (HTTP)';

const TOOLS = 1_000;
const BYTES = 16 * 1024 * 1024;
const P50_LIST: MetricSpec = { name: 'tools/list p50', unit: 'ms', better: 'lower' };
const P50_BIG: MetricSpec = { name: 'call p50', unit: 'ms', better: 'lower' };

const listLoad = (era: Era): Load => ({
  line: (id) => requestLine(era, id, 'tools/list'),
  check: (frame) => {
    const tools = (frame['result'] as { tools?: unknown[] } | undefined)?.tools;
    return Array.isArray(tools) && tools.length >= TOOLS;
  },
});

const bigLoad = (era: Era): Load => ({
  line: (id) => callLine(era, id, 'big', `{"bytes":${BYTES}}`),
  check: (frame) => resultText(frame)?.length === BYTES,
});

async function sequential(
  ctx: Context,
  scenario: string,
  targets: readonly Target[],
  metric: MetricSpec,
  loadOf: (era: Era) => Load,
  warmup: number,
  count: number,
  rss: boolean,
): Promise<void> {
  await interleave(ctx, scenario, targets, async (opened, target, record) => {
    const load = loadOf(target.era);
    await latency(opened.client, load, warmup, 120_000);
    const result = await latency(opened.client, load, count, 120_000);
    if (!record) return;
    ctx.rec.add(scenario, metric, target.name, quantileSorted(sorted(result.samples), 0.5));
    if (rss) ctx.rec.add(scenario, PEAK_RSS, target.name, memoryMiB(opened.client.pid).peak);
    ctx.rec.count(scenario, target.name, count, result.wrong, result.missing, result.sample);
  });
}

export async function large(ctx: Context): Promise<void> {
  const list = [fixtureDirect(TOOLS), bridgeFixture(TOOLS), dualEra(TOOLS)];
  await sequential(ctx, LIST, list, P50_LIST, listLoad, 5, scaled(ctx, 30), false);
  await sequential(ctx, BIG, [echoDirect(), bridgeEcho()], P50_BIG, bigLoad, 1, scaled(ctx, 3), true);
  const server = await startHttpServer('cheap');
  try {
    const targets = [mcpRemote(server.url), bridgeUrl(server.url)];
    await sequential(ctx, BIG_HTTP, targets, P50_BIG, bigLoad, 1, scaled(ctx, 3), true);
  } finally {
    server.close();
  }
}
