/**
 * `npm run conformance`: runs the client scenarios of the official MCP conformance suite
 * (`@modelcontextprotocol/conformance` 0.1.16) against the back face of the built bridge, through
 * the driver `client.ts`, one scenario at a time, and prints a table (scenario, checks passed,
 * the failed checks). Not part of `npm test`: the suite needs Node 22, which it installs once from
 * the npm registry (the `node` package carries the binary) into `$CONFORMANCE_DIR` (default: a
 * folder under the system temporary folder), with `npm install`, never through a shell.
 *
 * The scenario servers of 0.1.16 speak MCP 2025-11-25 (none speaks 2026-07-28), so every scenario
 * ends at the bridge's `server/discover`; the sign-in checks (`auth/*`) happen before it. The exit
 * code is 0 when every scenario passes exactly the checks of BASELINE (the results README.md
 * reports), 1 when one differs: a change of the bridge's sign-in shows up here.
 *
 * `CONFORMANCE_PATCHED=1` runs a copy of the suite whose registration answer carries
 * `client_secret_expires_at` (RFC 7591 §3.2.1 requires it with a `client_secret`; 0.1.16 omits it
 * and openid-client refuses the registration): a diagnosis of the later sign-in steps, never the
 * official result. `CONFORMANCE_SCENARIOS=a,b` runs only those.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '0.1.16';
const DRIVER = fileURLToPath(new URL('./client.js', import.meta.url));
const ADAPTER = fileURLToPath(new URL('./frontAdapter.js', import.meta.url));

/** Checks passed / checks counted of each scenario with 0.1.16, unpatched (README.md "Conformance"). */
const BASELINE: Readonly<Record<string, string>> = {
  initialize: '0/0',
  tools_call: '0/1',
  'elicitation-sep1034-client-defaults': '0/5',
  'sse-retry': '0/1',
  'auth/metadata-default': '4/6',
  'auth/metadata-var1': '4/6',
  'auth/metadata-var2': '4/6',
  'auth/metadata-var3': '4/6',
  'auth/basic-cimd': '4/5',
  'auth/scope-from-www-authenticate': '4/5',
  'auth/scope-from-scopes-supported': '4/5',
  'auth/scope-omitted-when-undefined': '4/5',
  'auth/scope-step-up': '4/6',
  'auth/scope-retry-limit': '4/5',
  'auth/token-endpoint-auth-basic': '4/7',
  'auth/token-endpoint-auth-post': '4/7',
  'auth/token-endpoint-auth-none': '16/16',
  'auth/pre-registration': '9/10',
  'auth/2025-03-26-oauth-metadata-backcompat': '0/4',
  'auth/2025-03-26-oauth-endpoint-fallback': '0/3',
  'auth/resource-mismatch': '2/2',
  'auth/offline-access-scope': '13/13',
  'auth/offline-access-not-supported': '4/5',
  'auth/client-credentials-jwt': '9/11',
  'auth/client-credentials-basic': '9/11',
  'auth/cross-app-access-complete-flow': '9/11',
};

/**
 * The front face (server scenarios) through frontAdapter.ts, in front of the project's fixture
 * server. The scenarios left out call tools, resources or prompts of the suite's own server
 * (`test_simple_text`, `test://static-text`, ...), which the fixture does not have; they fail with
 * "not found" (README.md "Conformance"). The SSE and DNS-rebinding scenarios test the adapter.
 */
const FRONT_BASELINE: Readonly<Record<string, string>> = {
  'server-initialize': '1/1',
  ping: '1/1',
  'logging-set-level': '1/1',
  'tools-list': '1/1',
  'resources-list': '1/1',
  'resources-subscribe': '1/1',
  'resources-unsubscribe': '1/1',
  'prompts-list': '1/1',
};

interface Check {
  readonly id: string;
  readonly status: string;
}

/** The folder with Node 22 and the suite, installed on first use. */
function install(): { node: string; suite: string } {
  const dir = process.env['CONFORMANCE_DIR'] ?? join(tmpdir(), `mcp-bridge-conformance-${VERSION}`);
  const node = join(dir, 'node_modules/node/bin/node');
  const suite = join(dir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  if (!existsSync(node) || !existsSync(suite)) {
    mkdirSync(dir, { recursive: true });
    if (!existsSync(join(dir, 'package.json')))
      writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const done = spawnSync(
      npm,
      ['install', '--no-audit', '--no-fund', 'node@22', `@modelcontextprotocol/conformance@${VERSION}`],
      { cwd: dir, stdio: 'inherit' },
    );
    if (done.status !== 0 || !existsSync(node)) throw new Error(`npm install in ${dir} failed`);
  }
  return { node, suite };
}

/** A copy of the suite whose registration answer has client_secret_expires_at (see the header). */
function patched(suite: string): string {
  const copy = suite.replace(/index\.js$/, 'index.patched.js');
  const source = readFileSync(suite, 'utf8');
  const from = '...i&&{client_secret:i},client_name:t.body.client_name';
  if (!source.includes(from)) throw new Error('the registration answer of the suite changed: no patch');
  writeFileSync(
    copy,
    source.replace(from, '...i&&{client_secret:i,client_secret_expires_at:0},client_name:t.body.client_name'),
  );
  return copy;
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
  readonly result: string;
  readonly row: string;
}

function tally(scenario: string, out: string, expected: string | undefined, official: boolean): Tally {
  const all = checksOf(out);
  const warnings = all.filter((check) => check.status === 'WARNING').map((check) => check.id);
  const checks = all.filter((check) => check.status === 'SUCCESS' || check.status === 'FAILURE');
  const passed = checks.filter((check) => check.status === 'SUCCESS').length;
  const failed = checks.filter((check) => check.status === 'FAILURE').map((check) => check.id);
  const result = `${passed}/${checks.length}`;
  const mark = official && expected !== undefined && expected !== result ? ` (baseline ${expected})` : '';
  return {
    result: mark === '' ? result : `${result}${mark}`,
    row: `| ${scenario} | ${result}${mark} | ${[...new Set(failed)].join(', ')} | ${warnings.join(', ')} |`,
  };
}

const HEADER = ['| scenario | checks passed | failed checks | warnings |', '|---|---|---|---|'];
const quiet = (): 'inherit' | 'ignore' => (process.env['CONFORMANCE_VERBOSE'] === '1' ? 'inherit' : 'ignore');

/** The back face: the client scenarios, each through the driver. Returns the rows that differ. */
function back(node: string, entry: string, official: boolean, rows: string[]): number {
  const only = process.env['CONFORMANCE_SCENARIOS']?.split(',').filter((name) => name !== '');
  // The suite splits --command at spaces and runs it with a shell (its own choice): both paths
  // are ours and hold no URL; the scenario URL is the one argument the suite appends.
  const command = `${process.execPath} ${DRIVER}`;
  if (/\s/.test(process.execPath) || /\s/.test(DRIVER)) throw new Error('the paths must not hold spaces');
  let differs = 0;
  for (const scenario of only ?? Object.keys(BASELINE)) {
    const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-out-'));
    spawnSync(
      node,
      [entry, 'client', '--command', command, '--scenario', scenario, '--timeout', '40000', '-o', out],
      {
        stdio: ['ignore', 'ignore', quiet()],
        timeout: 120_000,
      },
    );
    const row = tally(scenario, out, BASELINE[scenario], official);
    if (row.result.includes('baseline')) differs += 1;
    rows.push(row.row);
  }
  return differs;
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
    for (const scenario of Object.keys(FRONT_BASELINE)) {
      const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-out-'));
      spawnSync(node, [suite, 'server', '--url', url, '--scenario', scenario, '-o', out], {
        stdio: ['ignore', 'ignore', quiet()],
        timeout: 120_000,
      });
      const row = tally(scenario, out, FRONT_BASELINE[scenario], true);
      if (row.result.includes('baseline')) differs += 1;
      rows.push(row.row);
    }
    return differs;
  } finally {
    adapter.kill('SIGTERM');
  }
}

async function main(): Promise<number> {
  const { node, suite } = install();
  const official = process.env['CONFORMANCE_PATCHED'] !== '1';
  const entry = official ? suite : patched(suite);
  const backRows = [...HEADER];
  let differs = back(node, entry, official, backRows);
  process.stdout.write(
    `Back face (the bridge as a 2026-07-28 client; client scenarios):\n${backRows.join('\n')}\n`,
  );
  if (!official) {
    process.stdout.write('(patched suite: a diagnosis, not the official result)\n');
    return 0;
  }
  if (process.env['CONFORMANCE_SCENARIOS'] === undefined) {
    const frontRows = [...HEADER];
    differs += await front(node, suite, frontRows);
    process.stdout.write(
      `\nFront face (the bridge as a 2025-11-25 server, through frontAdapter):\n${frontRows.join('\n')}\n`,
    );
  }
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
