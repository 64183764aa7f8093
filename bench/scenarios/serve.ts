/**
 * Item 9, the HTTP front end: calls/s and p50 with 1, 8 and 32 sessions on one `serve` against
 * the same number of stdio bridges (one process each), all in front of the cheap echo upstream;
 * and the RSS of the serve process with 100 idle sessions (docs/serve.md#serve-sessions).
 */
import { echoCheck, echoLine } from '../frames.js';
import { openTarget } from '../measure.js';
import type { Opened } from '../measure.js';
import { memoryMiB } from '../proc.js';
import { P50, THROUGHPUT } from '../report.js';
import type { MetricSpec } from '../report.js';
import { openSession, startServe } from '../serveClient.js';
import { quantileSorted, sorted } from '../stats.js';
import { bridgeEcho } from '../targets.js';
import { scaled } from './common.js';
import type { Context } from './common.js';

export const SERVE_SESSIONS = [1, 8, 32] as const;
export const serveScenario = (sessions: number): string =>
  `9 serve: ${sessions} sessions (cheap echo upstream)`;
export const SERVE_IDLE = '9 serve: 100 idle sessions';
export const IDLE_RSS: MetricSpec = { name: 'RSS', unit: 'MiB', better: 'lower' };
const IDLE_SESSIONS = 100;
const STDIO = 'stdio bridges (one each)';
const SERVE = 'serve (one process)';

type Call = (id: number) => Promise<Record<string, unknown>>;

/** Every session calls `count` times one after the other, all sessions at once. */
async function drive(calls: readonly Call[], count: number, firstId: number) {
  const samples: number[] = [];
  let wrong = 0;
  const started = performance.now();
  await Promise.all(
    calls.map(async (call, s) => {
      for (let i = 0; i < count; i++) {
        const id = firstId + s * count + i;
        const t = performance.now();
        const frame = await call(id);
        samples.push(performance.now() - t);
        if (!echoCheck(frame, id)) wrong++;
      }
    }),
  );
  return { callsPerSecond: (calls.length * count) / ((performance.now() - started) / 1000), samples, wrong };
}

async function measure(
  ctx: Context,
  scenario: string,
  target: string,
  calls: readonly Call[],
  record: boolean,
) {
  const count = scaled(ctx, 200);
  await drive(calls, 20, 1_000_000);
  const run = await drive(calls, count, 2_000_000);
  if (!record) return;
  ctx.rec.add(scenario, THROUGHPUT, target, run.callsPerSecond);
  ctx.rec.add(scenario, P50, target, quantileSorted(sorted(Float64Array.from(run.samples)), 0.5));
  ctx.rec.count(scenario, target, calls.length * count, run.wrong, 0);
}

async function stdioRound(ctx: Context, scenario: string, sessions: number, record: boolean) {
  const opened: Opened[] = await Promise.all(
    Array.from({ length: sessions }, () => openTarget(bridgeEcho())),
  );
  try {
    const calls = opened.map(
      ({ client }): Call =>
        (id) =>
          client.request(id, echoLine('legacy', id), 60_000),
    );
    await measure(ctx, scenario, STDIO, calls, record);
  } finally {
    await Promise.all(opened.map(({ client }) => client.close()));
  }
}

async function serveRound(ctx: Context, scenario: string, sessions: number, record: boolean) {
  const serve = await startServe();
  try {
    const open = await Promise.all(Array.from({ length: sessions }, () => openSession(serve.url)));
    const calls = open.map(
      (session): Call =>
        (id) =>
          session.request(id, echoLine('legacy', id)),
    );
    await measure(ctx, scenario, SERVE, calls, record);
    await Promise.all(open.map((session) => session.close()));
  } finally {
    await serve.close();
  }
}

export async function serveFront(ctx: Context): Promise<void> {
  for (const sessions of SERVE_SESSIONS) {
    const scenario = serveScenario(sessions);
    for (let run = 1; run <= ctx.settings.runs; run++) {
      await stdioRound(ctx, scenario, sessions, true);
      await serveRound(ctx, scenario, sessions, true);
      ctx.log(`  ${scenario}: round ${run} of ${ctx.settings.runs}`);
    }
  }
  // Memory: one stdio bridge after its handshake, against serve with 100 initialized sessions.
  for (let run = 1; run <= ctx.settings.runs; run++) {
    const bridge = await openTarget(bridgeEcho());
    ctx.rec.add(SERVE_IDLE, IDLE_RSS, 'one stdio bridge (1 client)', memoryMiB(bridge.client.pid).rss);
    await bridge.client.close();
    const serve = await startServe();
    try {
      const open = [];
      for (let i = 0; i < IDLE_SESSIONS; i++) open.push(await openSession(serve.url));
      ctx.rec.add(SERVE_IDLE, IDLE_RSS, `serve, ${IDLE_SESSIONS} idle sessions`, memoryMiB(serve.pid).rss);
    } finally {
      await serve.close();
    }
  }
  ctx.rec.note(
    `${SERVE_IDLE}: VmRSS of the serve process alone (its upstream is another process) after ` +
      `${IDLE_SESSIONS} sessions made initialize and notifications/initialized and nothing else; ` +
      'the other row is one stdio bridge after its handshake.',
  );
}
