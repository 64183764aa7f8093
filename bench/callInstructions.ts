/**
 * The instructions the bridge process executes per forwarded call, and the fixed part of a process
 * (its start and the JIT work of the call path): each build runs under `valgrind --tool=callgrind`
 * with `node --predictable` (compiles on the main thread, so the JIT is counted), gets `initialize`
 * and then `tools/call` echo requests, and ends with its input. Two processes per build, one with
 * `--calls` requests and one with `--measured` more (by default twice `--calls`: three times as
 * many in all); per call is the difference divided by `--measured`, the fixed part what the
 * smaller one has beyond its calls.
 *
 *   node dist/bench/callInstructions.js [--upstream echo|fixture] [--calls 2000] [--measured 4000] [--window 1] [--runs 3] <main.js> [<main.js> ...]
 *   node dist/bench/callInstructions.js --ab [--upstream echo|fixture] [--runs 3] <main.js> [<main.js> ...]
 *
 * `--ab` counts what `node dist/bench/ab.js` measures with CPU time: its measured calls after its
 * warm-up, as many in flight (STDIO_CALL_SIZES: 10,000 after 2,000, 128 in flight), with the JIT
 * work that falls among them.
 *
 * Needs valgrind. Prints, per build, the median of `--runs` runs and their range. With `--window 1`
 * (the default) one request is in flight at a time; the count still moves by a few percent from
 * run to run (how the upstream's answer meets the event loop depends on timing), less than a CPU
 * time, whose spread in `node dist/bench/ab.js` is wider than the change of a few percent that
 * this is for (bench/README.md "Deliverable 10: the spread of ab.js"). With a larger window the
 * lines come in chunks whose sizes depend on timing, and the count moves more.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { echoLine, initializeLine, INITIALIZED_LINE } from './frames.js';
import { STDIO_CALL_SIZES } from './scenarios/common.js';
import { median } from './stats.js';
import { stdioUpstream } from './targets.js';

const USAGE =
  'usage: node dist/bench/callInstructions.js [--upstream echo|fixture] [--ab | [--calls N] [--measured N] [--window N]] [--runs N] <main.js> [<main.js> ...]\n';
const { values, positionals } = parseArgs({
  options: {
    upstream: { type: 'string' },
    ab: { type: 'boolean' },
    calls: { type: 'string' },
    measured: { type: 'string' },
    window: { type: 'string' },
    runs: { type: 'string' },
  },
  allowPositionals: true,
});
const ab = values.ab === true;
const calls = ab ? STDIO_CALL_SIZES.warmup : Number(values.calls ?? '2000');
const measured = ab
  ? STDIO_CALL_SIZES.count
  : values.measured === undefined
    ? 2 * calls
    : Number(values.measured);
const window = ab ? STDIO_CALL_SIZES.window : Number(values.window ?? '1');
const runs = Number(values.runs ?? '3');
const upstreamName = values.upstream ?? 'echo';
if (
  positionals.length === 0 ||
  (ab && (values.calls !== undefined || values.measured !== undefined || values.window !== undefined)) ||
  !Number.isInteger(calls) ||
  calls < 1 ||
  !Number.isInteger(measured) ||
  measured < 1 ||
  !Number.isInteger(window) ||
  window < 1 ||
  !Number.isInteger(runs) ||
  runs < 1 ||
  (upstreamName !== 'echo' && upstreamName !== 'fixture')
) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const upstream = stdioUpstream(upstreamName);

/** The instructions of one process of `main` that answers `count` calls. */
const oneProcess = (main: string, count: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const bridge = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--callgrind-out-file=/dev/null',
        process.execPath,
        '--predictable',
        main,
        '--',
        process.execPath,
        ...upstream,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let buffer = '';
    let sent = 0;
    let answered = 0;
    const pump = (): void => {
      let text = '';
      while (sent - answered < window && sent < count) {
        sent += 1;
        text += `${echoLine('legacy', sent)}\n`;
      }
      if (text.length > 0) bridge.stdin.write(text);
    };
    const onLine = (line: string): void => {
      const frame = JSON.parse(line) as { id?: unknown; error?: unknown };
      if (frame.id === 'init') {
        bridge.stdin.write(`${INITIALIZED_LINE}\n`);
        return pump();
      }
      if (typeof frame.id !== 'number') return;
      if (frame.error !== undefined) {
        reject(new Error(`call ${frame.id} failed: ${line}`));
        bridge.kill();
        return;
      }
      answered += 1;
      if (answered === count) bridge.stdin.end();
      else pump();
    };
    bridge.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    bridge.stdout.setEncoding('utf8').on('data', (text: string) => {
      buffer += text;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        onLine(line);
      }
    });
    bridge.once('error', reject);
    bridge.once('exit', () => {
      const collected = /Collected : (\d+)/.exec(stderr)?.[1];
      if (collected === undefined || answered !== count) {
        reject(
          new Error(`${answered} of ${count} calls answered, no count; stderr:\n${stderr.slice(-2000)}`),
        );
      } else resolve(Number(collected));
    });
    bridge.stdin.write(`${initializeLine('init')}\n`);
  });

/** One run of `main`: instructions per call and the fixed part, from two processes. */
async function oneRun(main: string): Promise<{ perCall: number; fixed: number }> {
  // Both processes at once, to halve the wait: a count moves with the load far less than a CPU
  // time does (the spread is in the header comment).
  const [few, many] = await Promise.all([oneProcess(main, calls), oneProcess(main, calls + measured)]);
  const perCall = (many - few) / measured;
  return { perCall, fixed: few - calls * perCall };
}

for (const main of positionals) {
  const results: { perCall: number; fixed: number }[] = [];
  for (let run = 0; run < runs; run += 1) results.push(await oneRun(main));
  const perCall = results.map((result) => result.perCall);
  const fixed = results.map((result) => result.fixed / 1e6);
  process.stdout.write(
    `${main} (${upstreamName}, window ${window}, calls ${calls} + ${measured}, ${runs} run${runs === 1 ? '' : 's'}): ` +
      `${median(perCall).toFixed(0)} per call (${Math.min(...perCall).toFixed(0)}–${Math.max(...perCall).toFixed(0)}), ` +
      `fixed part ${median(fixed).toFixed(0)} M (${Math.min(...fixed).toFixed(0)}–${Math.max(...fixed).toFixed(0)})\n`,
  );
}
