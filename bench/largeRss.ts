/**
 * Peak RSS of the bridge for one 16 MiB `tools/call` result: each build in a fresh process,
 * interleaved (A B A B …), to the cheap echo upstream whose `big` tool answers a text of
 * `arguments.bytes` bytes. The row is `VmHWM` of the bridge (/proc/<pid>/status) after that one
 * call, next to `VmHWM` after the handshake (what the bridge needs without the result):
 *
 *   node dist/bench/largeRss.js [--before <other build>/dist/bin/mcp-bridge-vscode.js] [--rounds 5]
 *
 * The "after" build is this one (dist/bin/mcp-bridge-vscode.js) unless --after names another.
 */
import { parseArgs } from 'node:util';
import { callLine, resultText } from './frames.js';
import { openTarget } from './measure.js';
import type { Target } from './measure.js';
import { memoryMiB } from './proc.js';
import { median } from './stats.js';
import { PATHS } from './targets.js';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    rounds: { type: 'string' },
    bytes: { type: 'string' },
  },
});
const rounds = Number(values.rounds ?? '5');
const bytes = Number(values.bytes ?? String(16 * 1024 * 1024));
const upstream = ['--', process.execPath, PATHS.scripted, '--mode', 'echo'];
const bridge = (name: string, main: string): Target => ({
  name,
  era: 'legacy',
  spawn: { cmd: process.execPath, args: [main, ...upstream] },
});
const targets = [
  ...(values.before === undefined ? [] : [bridge('before', values.before)]),
  bridge('after', values.after ?? PATHS.bridge),
];

interface Sample {
  readonly idle: number;
  readonly peak: number;
}

/** One fresh bridge, one call; its peak RSS after the handshake and after the call, in MiB. */
async function once(target: Target): Promise<Sample> {
  const opened = await openTarget(target);
  try {
    const idle = memoryMiB(opened.client.pid).peak;
    const frame = await opened.client.request(1, callLine('legacy', 1, 'big', `{"bytes":${bytes}}`), 120_000);
    if (resultText(frame)?.length !== bytes) throw new Error(`${target.name}: a wrong answer`);
    return { idle, peak: memoryMiB(opened.client.pid).peak };
  } finally {
    await opened.client.close(2_000);
  }
}

const samples = new Map<string, Sample[]>(targets.map((t) => [t.name, []]));
for (let round = 0; round < rounds; round++) {
  for (const target of targets) samples.get(target.name)!.push(await once(target));
}
const fmt = (xs: readonly number[]): string =>
  `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
process.stdout.write(
  `one ${(bytes / 1024 / 1024).toFixed(0)} MiB tools/call result, ${rounds} rounds, median (min–max) in MiB\n\n` +
    '| build | VmHWM after the handshake | VmHWM after the call |\n| --- | --- | --- |\n',
);
for (const [name, list] of samples) {
  process.stdout.write(`| ${name} | ${fmt(list.map((s) => s.idle))} | ${fmt(list.map((s) => s.peak))} |\n`);
}
process.exit(0);
