/**
 * Embedded mode: the SDK 2.x fixture served dual-era through the bridge's `serveDualEra`
 * (`test/fixtures/embeddedServer.ts`), against the same fixture served dual-era by the SDK itself
 * (`serveStdio(..., { legacy: 'serve' })`), both with the legacy raw client: throughput and
 * latency of `echo`, one form round (`ask_form`) and start-up.
 */
import { execFileSync } from 'node:child_process';
import { ELICIT_CONTENT } from '../rawClient.js';
import { callLine, echoCheck, echoLine, resultText } from '../frames.js';
import type { Load, Target } from '../measure.js';
import { CPU, START } from '../report.js';
import { PATHS, dualEra, embedded } from '../targets.js';
import { interleave, measureCalls, scaled } from './common.js';
import type { CallSizes, Context } from './common.js';

export const EMBEDDED = '8 embedded stdio (SDK 2.x fixture)';
export const EMBEDDED_ROUNDS = '8 embedded input round (ask_form)';
export const EMBEDDED_START = '8 embedded start-up';
export const SDK_PATHS = '8 SDK server alone, in process, no I/O';
export const SDK_LEGACY_PATH = 'SDK 2025-11-25 path (its dual-era shim)';
export const SDK_MODERN_PATH = 'SDK 2026-07-28 path (what the embedded front end drives)';

const FORM_ANSWER = `form: accept ${JSON.stringify(ELICIT_CONTENT)}`;

export async function embeddedMode(ctx: Context): Promise<void> {
  const targets: Target[] = [dualEra(), embedded()];
  const calls: CallSizes = {
    warmup: 1_000,
    count: scaled(ctx, 5_000),
    window: 128,
    sequential: scaled(ctx, 1_000),
    timeoutMs: 120_000,
  };
  const echo: Load = { line: (id) => echoLine('legacy', id), check: echoCheck };
  await interleave(ctx, EMBEDDED, targets, (opened, target, record) =>
    measureCalls(ctx, EMBEDDED, opened, target, echo, calls, record),
  );

  const rounds: CallSizes = {
    warmup: 200,
    count: scaled(ctx, 1_000),
    window: 64,
    sequential: scaled(ctx, 300),
    timeoutMs: 120_000,
  };
  const form: Load = {
    line: (id) => callLine('legacy', id, 'ask_form', '{}'),
    check: (frame) => resultText(frame) === FORM_ANSWER,
  };
  await interleave(ctx, EMBEDDED_ROUNDS, targets, async (opened, target, record) => {
    const servedBefore = opened.client.served;
    await measureCalls(ctx, EMBEDDED_ROUNDS, opened, target, form, rounds, record);
    const served = opened.client.served - servedBefore;
    const sent = rounds.warmup + rounds.count + rounds.sequential;
    if (record && served !== sent) {
      ctx.rec.note(
        `${EMBEDDED_ROUNDS}: ${target.name} sent ${served} elicitation requests for ${sent} calls`,
      );
    }
  });

  // The floor under the embedded legacy path: the SDK server's own cost per call on each path,
  // without pipes, lines or JSON (bench/sdkPaths.ts), in a process of its own.
  const paths = JSON.parse(
    execFileSync(process.execPath, [
      PATHS.sdkPaths,
      '--json',
      '--rounds',
      String(ctx.settings.runs),
      '--calls',
      String(scaled(ctx, 40_000)),
    ]).toString(),
  ) as { legacy: number[]; modern: number[] };
  for (const value of paths.legacy) ctx.rec.add(SDK_PATHS, CPU, SDK_LEGACY_PATH, value);
  for (const value of paths.modern) ctx.rec.add(SDK_PATHS, CPU, SDK_MODERN_PATH, value);

  const starts: Context = {
    ...ctx,
    settings: { ...ctx.settings, runs: ctx.settings.runs * ctx.settings.startsPerRun },
  };
  await interleave(
    starts,
    EMBEDDED_START,
    targets,
    (opened, target, record) => {
      if (record) ctx.rec.add(EMBEDDED_START, START, target.name, opened.startMs);
      return Promise.resolve();
    },
    true,
  );
}
