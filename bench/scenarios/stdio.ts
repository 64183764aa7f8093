/**
 * Scenarios over stdio: the bridge's own overhead against the cheap echo
 * upstream, the realistic path to the SDK 2.x fixture, and one input round per call.
 */
import { ELICIT_CONTENT } from '../rawClient.js';
import { callLine, echoCheck, echoLine, resultText } from '../frames.js';
import type { Era } from '../frames.js';
import { throughput } from '../measure.js';
import type { Load, Target } from '../measure.js';
import { memoryMiB } from '../proc.js';
import { PEAK_RSS } from '../report.js';
import { bridgeEcho, bridgeFixture, dualEra, echoDirect, fixtureDirect } from '../targets.js';
import { interleave, measureCalls, scaled, scaledStdioSizes } from './common.js';
import type { CallSizes, Context } from './common.js';

const echoLoad = (era: Era): Load => ({ line: (id) => echoLine(era, id), check: echoCheck });

export const OVERHEAD = '1 overhead stdio (cheap echo upstream)';
const FLOOD = 10_000;

/** Item 2: legacy → bridge → echo against modern → echo (floor); CPU against the SDK server. */
export async function overhead(ctx: Context): Promise<void> {
  const targets = [echoDirect(), bridgeEcho(), fixtureDirect(0, 'SDK fixture direct (CPU reference)')];
  let refused = 0;
  await interleave(ctx, OVERHEAD, targets, async (opened, target, record) => {
    await measureCalls(ctx, OVERHEAD, opened, target, echoLoad(target.era), scaledStdioSizes(ctx), record);
    if (target.name !== 'bridge') return;
    // The flood: 10,000 requests written at once; the in-flight limit must keep memory bounded.
    let count = 0;
    const flood: Load = {
      line: (id) => echoLine(target.era, id),
      check: (frame) => {
        if (frame['error'] !== undefined) count++;
        return true;
      },
    };
    await throughput(opened.client, flood, FLOOD, FLOOD, 120_000);
    if (!record) return;
    refused += count;
    ctx.rec.add(OVERHEAD, PEAK_RSS, target.name, memoryMiB(opened.client.pid).peak);
  });
  ctx.rec.note(
    `${OVERHEAD}: peak RSS is the process's high-water mark after the measurements and a flood of ` +
      `${FLOOD} requests written at once; the bridge refused ${refused} of ${FLOOD * ctx.settings.runs} ` +
      'flood requests with too_many_requests (its in-flight limit is 256).',
  );
}

export const REALISTIC = '2 realistic stdio (SDK 2.x fixture)';

/** Item 3: legacy → bridge → fixture against modern → fixture and the SDK's dual-era server. */
export async function realistic(ctx: Context): Promise<void> {
  const targets: Target[] = [fixtureDirect(), bridgeFixture(), dualEra()];
  await interleave(ctx, REALISTIC, targets, (opened, target, record) =>
    measureCalls(ctx, REALISTIC, opened, target, echoLoad(target.era), scaledStdioSizes(ctx), record),
  );
}

export const ROUNDS = '3 input round (ask_form)';
const FORM_ANSWER = `form: accept ${JSON.stringify(ELICIT_CONTENT)}`;

/** Item 4: one form round answered at once: the SDK's legacy shim against the bridge. */
export async function inputRounds(ctx: Context): Promise<void> {
  const targets: Target[] = [dualEra(), bridgeFixture()];
  const sizes: CallSizes = {
    warmup: 500,
    count: scaled(ctx, 2_000),
    window: 64,
    sequential: scaled(ctx, 500),
    timeoutMs: 120_000,
  };
  await interleave(ctx, ROUNDS, targets, async (opened, target, record) => {
    const load: Load = {
      line: (id) => callLine(target.era, id, 'ask_form', '{}'),
      check: (frame) => resultText(frame) === FORM_ANSWER,
    };
    const servedBefore = opened.client.served;
    await measureCalls(ctx, ROUNDS, opened, target, load, sizes, record);
    const rounds = opened.client.served - servedBefore;
    const calls = sizes.warmup + sizes.count + sizes.sequential;
    if (record && rounds !== calls) {
      ctx.rec.note(`${ROUNDS}: ${target.name} sent ${rounds} elicitation requests for ${calls} calls`);
    }
  });
}
