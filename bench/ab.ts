/**
 * Before/after of a change to the bridge: two builds of the bridge, interleaved, against the cheap
 * echo upstream (the overhead scenario), plus their start-up. For perf commits:
 *
 *   git worktree add /tmp/before HEAD~1 && (cd /tmp/before && npm ci && npm run build)
 *   node dist/bench/ab.js --before /tmp/before/dist/bin/mcp-bridge-vscode.js [--rounds 5]
 *
 * The "after" build is this one (dist/bin/mcp-bridge-vscode.js, the bundle) unless --after names
 * another; a path that does not end in `.js` is an executable run as it is (a single executable of
 * `npm run build:sea`). `--start-only` measures only the start-up (spawn → initialize result), `--upstream fixture` uses the SDK fixture,
 * `--upstream http` the URL form against the cheap 2026-07-28 HTTP upstream (bench/servers/http.js cheap).
 */
import { parseArgs } from 'node:util';
import { echoCheck, echoLine } from './frames.js';
import type { Target } from './measure.js';
import { START, createRecorder, markdownTable } from './report.js';
import type { MetricSpec } from './report.js';
import { cpuMs } from './proc.js';
import { STDIO_CALL_SIZES, interleave, measureCalls } from './scenarios/common.js';
import type { Context } from './scenarios/common.js';
import { PATHS, startHttpServer, stdioUpstream } from './targets.js';

const USAGE =
  'usage: node dist/bench/ab.js --before <main.js> [--after <main.js>] [--rounds N] ' +
  '[--upstream echo|fixture|http] [--start-only]\n';
const { values } = parseArgs({
  options: {
    help: { type: 'boolean' },
    before: { type: 'string' },
    after: { type: 'string' },
    rounds: { type: 'string' },
    upstream: { type: 'string' },
    'start-only': { type: 'boolean' },
  },
});
if (values.help === true) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (values.before === undefined) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const START_CPU: MetricSpec = { name: 'bridge CPU until the initialize result', unit: 'ms', better: 'lower' };
const rounds = Number(values.rounds ?? '5');
const server = values.upstream === 'http' ? await startHttpServer('cheap') : undefined;
const upstream =
  server !== undefined ? [server.url] : ['--', process.execPath, ...stdioUpstream(values.upstream)];
const bridge = (name: string, main: string): Target => ({
  name,
  era: 'legacy',
  // A `.js` bundle runs under this Node; anything else is an executable (a single executable of
  // `npm run build:sea`, docs/install.md#install-executable) and runs as it is.
  spawn: main.endsWith('.js')
    ? { cmd: process.execPath, args: [main, ...upstream] }
    : { cmd: main, args: upstream },
});
const targets = [bridge('before', values.before), bridge('after', values.after ?? PATHS.bridge)];
const rec = createRecorder();
const ctx: Context = {
  rec,
  settings: { runs: rounds, startsPerRun: 1, scale: 1 },
  log: (text) => void process.stderr.write(`${text}\n`),
};
const SCENARIO = `bridge → ${values.upstream ?? 'echo'}`;
const load = { line: (id: number) => echoLine('legacy', id), check: echoCheck };
// HTTP: the sizes of the bench's http scenario (32 in flight).
const sizes =
  server !== undefined
    ? { warmup: 300, count: 4_000, window: 32, sequential: 1_000, timeoutMs: 120_000 }
    : STDIO_CALL_SIZES;
await interleave(ctx, SCENARIO, targets, async (opened, target, record) => {
  if (record) {
    rec.add(`${SCENARIO} start`, START, target.name, opened.startMs);
    rec.add(`${SCENARIO} start`, START_CPU, target.name, cpuMs(opened.client.pid));
  }
  if (values['start-only'] === true) return;
  await measureCalls(ctx, SCENARIO, opened, target, load, sizes, record);
});
server?.close();
process.stdout.write(`${markdownTable(rec.rows(), rec.errors())}\n`);
for (const note of rec.notes()) process.stdout.write(`- ${note}\n`);
process.exit(0);
