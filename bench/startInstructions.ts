/**
 * The instructions a bridge start executes, from the spawn to the `initialize` result: each build
 * runs under `valgrind --tool=callgrind` (which counts instructions, so the number does not move
 * with the load of the machine) with the cheap echo upstream, gets one `initialize`, and is sent
 * SIGINT at its result. Node's own start (about 500 M) is part of every count.
 *
 *   node dist/bench/startInstructions.js [--runs 3] <main.js> [<main.js> ...]
 *
 * Needs valgrind. Prints the counts in millions, one line per build (bench/README.md
 * "Start-up files").
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { initializeLine } from './frames.js';
import { stdioUpstream } from './targets.js';

const { values, positionals } = parseArgs({
  options: { runs: { type: 'string' } },
  allowPositionals: true,
});
const runs = Number(values.runs ?? '3');
if (positionals.length === 0 || !Number.isInteger(runs) || runs < 1) {
  process.stderr.write('usage: node dist/bench/startInstructions.js [--runs N] <main.js> [<main.js> ...]\n');
  process.exit(2);
}

/** The instructions of one start of `main`, in millions. */
const oneStart = (main: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const upstream = [process.execPath, ...stdioUpstream('echo')];
    const bridge = spawn(
      'valgrind',
      ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, main, '--', ...upstream],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    bridge.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    bridge.stdout.once('data', () => bridge.kill('SIGINT'));
    bridge.once('error', reject);
    bridge.once('exit', () => {
      const count = /Collected : (\d+)/.exec(stderr)?.[1];
      if (count === undefined) reject(new Error(`no instruction count; stderr:\n${stderr}`));
      else resolve(Number(count) / 1e6);
    });
    bridge.stdin.write(`${initializeLine(1)}\n`);
  });

for (const main of positionals) {
  const counts: number[] = [];
  for (let i = 0; i < runs; i += 1) counts.push(await oneStart(main));
  process.stdout.write(`${main}: ${counts.map((count) => count.toFixed(0)).join(', ')} M\n`);
}
