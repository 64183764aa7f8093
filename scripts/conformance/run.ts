/**
 * `npm run conformance`: runs the official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * version in scenarios.ts) against both faces of the built bridge and prints the auth score and a
 * table per face. Not part of `npm test`: the suite needs Node 22, which it installs once from the
 * npm registry (`node-<platform>-<arch>`, a package that carries the binary) into
 * `$CONFORMANCE_DIR` (default: a folder under the system temporary folder), with `npm install`,
 * never through a shell.
 *
 * - Back face (the bridge as a 2026-07-28 client): each client scenario of `--spec-version
 *   2026-07-28` through the driver `client.ts`, which stands in for VS Code (form and URL
 *   elicitation, a scripted browser).
 * - Front face (the bridge as a 2025-11-25 server): server scenarios through frontAdapter.ts.
 * - Serve face (`mcp-bridge serve` as a 2025-11-25 Streamable HTTP server): every scored server
 *   scenario of 2025-11-25 straight at its URL, in front of upstream.ts (serveFace.ts).
 *
 * Exit code 0 when every auth scenario and every serve scenario in scope passes all its checks
 * and every other scenario gives its baseline; 1 otherwise. `CONFORMANCE_SCENARIOS=a,b` runs only those (of the back and serve faces);
 * `CONFORMANCE_VERBOSE=1` shows the suite's output.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AUTH_LEFT_OUT,
  EXTENSION_SCENARIOS,
  AUTH_SCENARIOS,
  FRONT_BASELINE,
  OTHER_BASELINE,
  SUITE_NODE,
  SUITE_VERSION,
} from './scenarios.js';
import { serveFace } from './serveFace.js';

const DRIVER = fileURLToPath(new URL('./client.js', import.meta.url));
const ADAPTER = fileURLToPath(new URL('./frontAdapter.js', import.meta.url));

interface Check {
  readonly id: string;
  readonly status: string;
}

/** The folder with Node 22 and the suite, installed on first use. */
function install(): { node: string; suite: string } {
  const dir = process.env['CONFORMANCE_DIR'] ?? join(tmpdir(), `mcp-bridge-conformance-${SUITE_VERSION}`);
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const nodePackage = `node-${platform}-${process.arch}`;
  const node = join(
    dir,
    'node_modules',
    nodePackage,
    'bin',
    process.platform === 'win32' ? 'node.exe' : 'node',
  );
  const suite = join(dir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  if (!existsSync(node) || !existsSync(suite)) {
    mkdirSync(dir, { recursive: true });
    if (!existsSync(join(dir, 'package.json')))
      writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const done = spawnSync(
      npm,
      [
        'install',
        '--no-audit',
        '--no-fund',
        `${nodePackage}@${SUITE_NODE}`,
        `@modelcontextprotocol/conformance@${SUITE_VERSION}`,
      ],
      { cwd: dir, stdio: 'inherit' },
    );
    if (done.status !== 0 || !existsSync(node)) throw new Error(`npm install in ${dir} failed`);
  }
  return { node, suite };
}

function checksOf(outDir: string): Check[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'checks.json') found.push(path);
    }
  };
  walk(outDir);
  const file = found[0];
  return file === undefined ? [] : (JSON.parse(readFileSync(file, 'utf8')) as Check[]);
}

interface Tally {
  /** `passed/counted`, warnings counted as not passed. */
  readonly result: string;
  /** Every check passed, none warned, at least one counted. */
  readonly clean: boolean;
  readonly row: string;
}

function tally(scenario: string, out: string, note: (result: string, clean: boolean) => string): Tally {
  const all = checksOf(out);
  const counted = all.filter((check) => ['SUCCESS', 'FAILURE', 'WARNING'].includes(check.status));
  const passed = counted.filter((check) => check.status === 'SUCCESS').length;
  const failed = counted.filter((check) => check.status === 'FAILURE').map((check) => check.id);
  const warned = counted.filter((check) => check.status === 'WARNING').map((check) => check.id);
  const result = `${passed}/${counted.length}`;
  const clean = counted.length > 0 && passed === counted.length;
  const mark = note(result, clean);
  return {
    result,
    clean,
    row: `| ${scenario} | ${result}${mark} | ${[...new Set(failed)].join(', ')} | ${[...new Set(warned)].join(', ')} |`,
  };
}

const HEADER = ['| scenario | checks passed | failed checks | warnings |', '|---|---|---|---|'];
const quiet = (): 'inherit' | 'ignore' => (process.env['CONFORMANCE_VERBOSE'] === '1' ? 'inherit' : 'ignore');

function runClient(node: string, suite: string, scenario: string): string {
  // The suite splits --command at spaces and runs it with a shell (its own choice): both paths
  // are ours and hold no URL; the scenario URL is the one argument the suite appends.
  if (/\s/.test(process.execPath) || /\s/.test(DRIVER)) throw new Error('the paths must not hold spaces');
  const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-out-'));
  spawnSync(
    node,
    [
      suite,
      'client',
      '--command',
      `${process.execPath} ${DRIVER}`,
      '--scenario',
      scenario,
      '--spec-version',
      '2026-07-28',
      '--timeout',
      '40000',
      '-o',
      out,
      ...(EXTENSION_SCENARIOS.has(scenario) ? ['--force'] : []),
    ],
    { stdio: ['ignore', 'ignore', quiet()], timeout: 120_000 },
  );
  return out;
}

/** The back face. Returns the auth score and the number of other rows that differ. */
function back(node: string, suite: string, only: readonly string[] | undefined) {
  const authRows = [...HEADER];
  const otherRows = [...HEADER];
  let authPassed = 0;
  let authRun = 0;
  let differs = 0;
  for (const scenario of AUTH_SCENARIOS) {
    if (only !== undefined && !only.includes(scenario)) continue;
    authRun += 1;
    const row = tally(scenario, runClient(node, suite, scenario), (_r, clean) => (clean ? '' : ' (FAIL)'));
    if (row.clean) authPassed += 1;
    authRows.push(row.row);
  }
  for (const [scenario, expected] of Object.entries(OTHER_BASELINE)) {
    if (only !== undefined && !only.includes(scenario)) continue;
    const row = tally(scenario, runClient(node, suite, scenario), (result) =>
      result === expected ? '' : ` (baseline ${expected})`,
    );
    if (row.result !== expected) differs += 1;
    otherRows.push(row.row);
  }
  return { authRows, otherRows, authPassed, authRun, differs };
}

/** The front face: the adapter's URL, then each server scenario. Returns the rows that differ. */
async function front(node: string, suite: string, rows: string[]): Promise<number> {
  const adapter = spawn(process.execPath, [ADAPTER], { stdio: ['ignore', 'pipe', quiet()] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      adapter.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
      adapter.once('exit', () => reject(new Error('the front adapter stopped')));
    });
    let differs = 0;
    for (const [scenario, expected] of Object.entries(FRONT_BASELINE)) {
      const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-out-'));
      spawnSync(node, [suite, 'server', '--url', url, '--scenario', scenario, '-o', out], {
        stdio: ['ignore', 'ignore', quiet()],
        timeout: 120_000,
      });
      const row = tally(scenario, out, (result) => (result === expected ? '' : ` (baseline ${expected})`));
      if (row.result !== expected) differs += 1;
      rows.push(row.row);
    }
    return differs;
  } finally {
    adapter.kill('SIGTERM');
  }
}

async function main(): Promise<number> {
  const { node, suite } = install();
  const only = process.env['CONFORMANCE_SCENARIOS']?.split(',').filter((name) => name !== '');
  const result = back(node, suite, only);
  const out = process.stdout;
  out.write(`Client auth scenarios of 2026-07-28 (the bridge as a client, ${SUITE_VERSION}):\n`);
  out.write(`${result.authRows.join('\n')}\n`);
  out.write(`\nauth score: ${result.authPassed}/${result.authRun} scenarios pass every check\n`);
  out.write(
    `left out: ${Object.entries(AUTH_LEFT_OUT)
      .map(([name, why]) => `${name} (${why})`)
      .join('; ')}\n`,
  );
  if (result.otherRows.length > HEADER.length)
    out.write(`\nOther client scenarios of 2026-07-28:\n${result.otherRows.join('\n')}\n`);
  let differs = result.differs + (result.authRun - result.authPassed);
  if (only === undefined) {
    const frontRows = [...HEADER];
    differs += await front(node, suite, frontRows);
    out.write(
      `\nFront face (the bridge as a 2025-11-25 server, through frontAdapter):\n${frontRows.join('\n')}\n`,
    );
  }
  const serveRows = [...HEADER];
  const score = (scenario: string, dir: string) =>
    tally(scenario, dir, (_r, clean) => (clean ? '' : ' (FAIL)'));
  differs += await serveFace(node, suite, serveRows, score, { quiet: quiet(), only });
  if (serveRows.length > HEADER.length)
    out.write(`\nServe face (mcp-bridge serve, 2025-11-25, no adapter):\n${serveRows.join('\n')}\n`);
  return differs === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
