/**
 * `npm run bench`: every scenario of bench/README.md, targets interleaved, one table, bench/results.json
 * and bench/results.svg. Not part of `npm test`.
 *
 *   node dist/bench/run.js [--full] [--only overhead,realistic,rounds,http,large,startup,memory,embedded,serve,shared]
 *     [--runs N] [--scale X] [--out DIR]
 *
 * The default fits in a few minutes on a 2-core machine; `--full` runs more rounds and requests.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chartSvg } from './chart.js';
import { checkGoals } from './goals.js';
import { loadAverage, machine } from './proc.js';
import { createRecorder, markdownTable } from './report.js';
import type { Context, Settings } from './scenarios/common.js';
import { http } from './scenarios/http.js';
import { embeddedMode } from './scenarios/embedded.js';
import { large } from './scenarios/large.js';
import { memory } from './scenarios/memory.js';
import { serveFront } from './scenarios/serve.js';
import { sharedBridge } from './scenarios/shared.js';
import { startup } from './scenarios/startup.js';
import { inputRounds, overhead, realistic } from './scenarios/stdio.js';

const SCENARIOS: Record<string, (ctx: Context) => Promise<void>> = {
  overhead,
  realistic,
  rounds: inputRounds,
  http,
  large,
  startup,
  memory,
  embedded: embeddedMode,
  serve: serveFront,
  shared: sharedBridge,
};

const OUT = fileURLToPath(new URL('../../bench/', import.meta.url));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      full: { type: 'boolean' },
      only: { type: 'string' },
      out: { type: 'string' },
      runs: { type: 'string' },
      scale: { type: 'string' },
    },
  });
  const full = values.full === true;
  const settings: Settings = {
    runs: Number(values.runs ?? (full ? 7 : 3)),
    startsPerRun: full ? 4 : 3,
    scale: Number(values.scale ?? (full ? 2 : 1)),
  };
  const chosen = values.only === undefined ? Object.keys(SCENARIOS) : values.only.split(',');
  for (const name of chosen) if (SCENARIOS[name] === undefined) throw new Error(`unknown scenario ${name}`);
  const rec = createRecorder();
  const log = (text: string): void => void process.stderr.write(`${text}\n`);
  const ctx: Context = { rec, settings, log };
  const started = performance.now();
  const loadBefore = loadAverage();
  for (const name of chosen) {
    log(`scenario ${name}`);
    await SCENARIOS[name]!(ctx);
  }
  const seconds = (performance.now() - started) / 1000;
  const load = [loadBefore, loadAverage()];

  const rows = rec.rows();
  const errors = rec.errors();
  const goals = checkGoals(rows, errors);
  const host = machine();
  const date = new Date().toISOString();
  const about =
    `${date.slice(0, 10)} · ${host.cpu} · ${host.cores} cores · ${host.memoryGiB} GiB · ` +
    `Node ${host.node} · ${host.os} · load average ${load.map((l) => l.toFixed(1)).join(' → ')} · ` +
    `${settings.runs} rounds${full ? ' (--full)' : ''} · ${seconds.toFixed(0)} s`;
  const table = markdownTable(rows, errors);
  const goalLines = [
    '| target | measured | verdict |',
    '| --- | --- | --- |',
    ...goals.map(
      (g) =>
        `| ${g.goal} | ${g.measured} | ${g.floor === true ? 'floor' : g.pass === undefined ? 'not measured' : g.pass ? 'met' : 'MISSED'} |`,
    ),
  ];
  const notes = rec.notes().map((n) => `- ${n}`);
  const report = [about, '', table, '', ...goalLines, '', ...notes].join('\n');
  process.stdout.write(`${report}\n`);

  const dir = values.out ?? OUT;
  const results = { date, machine: host, load, settings, seconds, rows, errors, goals, notes: rec.notes() };
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(dir, 'results.svg'), chartSvg(rows, 'mcp-bridge-vscode benchmarks', about));
  writeFileSync(join(dir, 'results.md'), `${report}\n`);
  log(`wrote ${join(dir, 'results.json')}, results.svg and results.md`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
