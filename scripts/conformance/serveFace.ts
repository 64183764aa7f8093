/**
 * The serve face of `npm run conformance` (run.ts): the built `mcp-bridge serve` in front of the
 * 2026-07-28-only conformance upstream (upstream.ts), and the suite's server mode pointed at the
 * URL it prints, with nothing in between (docs/serve.md#serve-rules).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVE_SCENARIOS } from './scenarios.js';

const BRIDGE = fileURLToPath(new URL('../../bin/mcp-bridge.js', import.meta.url));
const UPSTREAM = fileURLToPath(new URL('./upstream.js', import.meta.url));
const LISTENING = /serve: listening on (http:\/\/\S+)/;

/** Scores one scenario's output folder: its row, and whether every check passed. */
export type Score = (scenario: string, out: string) => { readonly clean: boolean; readonly row: string };

/** Runs each scenario of SERVE_SCENARIOS (in `only`, if given); returns how many did not pass every check. */
export async function serveFace(
  node: string,
  suite: string,
  rows: string[],
  score: Score,
  options: { readonly quiet: 'inherit' | 'ignore'; readonly only: readonly string[] | undefined },
): Promise<number> {
  const { quiet, only } = options;
  const scenarios = SERVE_SCENARIOS.filter((name) => only === undefined || only.includes(name));
  if (scenarios.length === 0) return 0;
  const serve = spawn(
    process.execPath,
    [BRIDGE, 'serve', '--listen', '127.0.0.1:0', '--', process.execPath, UPSTREAM],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      serve.stderr.setEncoding('utf8');
      serve.stderr.on('data', (chunk: string) => {
        seen += chunk;
        if (quiet === 'inherit') process.stderr.write(chunk);
        const found = LISTENING.exec(seen)?.[1];
        if (found !== undefined) resolve(found);
      });
      serve.once('exit', () => reject(new Error('mcp-bridge serve stopped before it listened')));
    });
    let failed = 0;
    for (const scenario of scenarios) {
      const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-out-'));
      const args = [suite, 'server', '--url', url, '--scenario', scenario, '--spec-version', '2025-11-25'];
      spawnSync(node, [...args, '-o', out], { stdio: ['ignore', 'ignore', quiet], timeout: 120_000 });
      const row = score(scenario, out);
      if (!row.clean) failed += 1;
      rows.push(row.row);
    }
    return failed;
  } finally {
    serve.kill('SIGTERM');
  }
}
