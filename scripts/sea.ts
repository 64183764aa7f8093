/**
 * `npm run build:sea`: the single executables `mcp-bridge` and `mcp-bridge-vscode` of each target
 * of scripts/seaTargets.ts in `dist/sea/`, with `dist/sea/SHA256SUMS` (docs/install.md#install-executable).
 *
 * - One file per executable: the same entries as scripts/bundle.ts, without code splitting (an
 *   application holds one script) and with the `serve` command and the input checks inside it:
 *   the package build reads `chunks/input-checks.cjs` beside the bundle (src/cli/inputChecks.ts),
 *   which a single executable does not have, so here that `createRequire(…)` becomes a `require`
 *   of schemas.js that esbuild bundles and still runs on first use.
 * - The Node of each target is its npm package (`npm pack` into `.cache/sea/`, checked against
 *   the pinned `dist.integrity` on every build), not a dependency: each is 40 to 60 MB.
 * - `node --build-sea` (Node 25.5 and later) runs with the linux-x64 Node of the cache, since the
 *   package builds on Node 20; the config names each target's Node as `executable`, so one machine
 *   builds all targets. Code cache only for linux-x64: V8's cache is for the CPU and the V8 build
 *   that wrote it, and only the host's own target has both.
 * - Each file is checked by its format (scripts/seaFormat.ts); `npm run test:sea` runs the
 *   linux-x64 ones (test/sea/).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Plugin } from 'esbuild';
import { jsoncEsm, NODE_ESM, ROOT, rxjsEsm } from './bundlePlugins.js';
import { formatProblem } from './seaFormat.js';
import { HOST_TARGET, NODE_VERSION, SEA_TARGETS } from './seaTargets.js';
import type { SeaTarget } from './seaTargets.js';

const CACHE = join(ROOT, '.cache/sea');
const OUT = join(ROOT, 'dist/sea');
const ENTRIES = {
  'mcp-bridge-vscode': 'dist/src/cli/main.js',
  'mcp-bridge': 'dist/src/cli/mcpBridge.js',
} as const;

/** The lazy `require` of ajv and the schema (src/cli/inputChecks.ts) as a bundled `require`. */
const LAZY_REQUIRE = 'createRequire(import.meta.url)(INPUT_CHECKS_FILE)';
const inputChecksInside: Plugin = {
  name: 'input-checks-inside',
  setup(plugin) {
    plugin.onLoad({ filter: /[\\/]cli[\\/]inputChecks\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(LAZY_REQUIRE)) throw new Error(`${args.path} no longer holds ${LAZY_REQUIRE}`);
      return { contents: source.replace(LAZY_REQUIRE, "require('../codec/input/schemas.js')"), loader: 'js' };
    });
  },
};

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

const run = (cmd: string, args: readonly string[]): void => {
  const result = spawnSync(cmd, args, { stdio: 'inherit' });
  if (result.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${result.status ?? result.signal})`);
};

const sha = (algorithm: 'sha256' | 'sha512', file: string, encoding: 'hex' | 'base64'): string =>
  createHash(algorithm).update(readFileSync(file)).digest(encoding);

/** The Node executable of `target`, from the cached or fetched tarball of its npm package. */
function targetNode(target: SeaTarget & { node: NonNullable<SeaTarget['node']> }): string {
  const { pkg, integrity } = target.node;
  const tarball = join(CACHE, `${pkg}-${NODE_VERSION}.tgz`);
  if (!existsSync(tarball)) run('npm', ['pack', `${pkg}@${NODE_VERSION}`, '--pack-destination', CACHE]);
  const actual = `sha512-${sha('sha512', tarball, 'base64')}`;
  if (actual !== integrity) {
    rmSync(tarball);
    throw new Error(`${tarball} is ${actual}, not the pinned ${integrity}: deleted, run again`);
  }
  const member = `package/bin/node${target.suffix}`;
  const dir = join(CACHE, `${pkg}-${NODE_VERSION}`);
  if (!existsSync(join(dir, member))) {
    mkdirSync(dir, { recursive: true });
    run('tar', ['-xzf', tarball, '-C', dir, member]);
  }
  return join(dir, member);
}

async function bundleOne(name: string, entry: string): Promise<string> {
  const outfile = join(CACHE, 'bundle', `${name}.mjs`);
  await build({
    ...NODE_ESM,
    entryPoints: [join(ROOT, entry)],
    outfile,
    splitting: false,
    define: { MCP_BRIDGE_VERSION: JSON.stringify(version) },
    plugins: [rxjsEsm, jsoncEsm, inputChecksInside],
  });
  return outfile;
}

function buildOne(
  hostNode: string,
  main: string,
  executable: string,
  output: string,
  codeCache: boolean,
): void {
  const config = join(CACHE, 'config', `${output.split(/[\\/]/).pop() ?? 'sea'}.json`);
  mkdirSync(join(CACHE, 'config'), { recursive: true });
  writeFileSync(
    config,
    JSON.stringify({
      main,
      mainFormat: 'module',
      executable,
      output,
      disableExperimentalSEAWarning: true,
      useCodeCache: codeCache,
    }),
  );
  run(hostNode, ['--build-sea', config]);
}

async function main(): Promise<void> {
  if (`${process.platform}-${process.arch}` !== HOST_TARGET)
    throw new Error(
      `build:sea runs on ${HOST_TARGET} (its Node runs --build-sea), not ${process.platform}-${process.arch}`,
    );
  mkdirSync(CACHE, { recursive: true });
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const mains = Object.entries(ENTRIES).map(
    async ([name, entry]) => [name, await bundleOne(name, entry)] as const,
  );
  const bundles = await Promise.all(mains);
  const host = SEA_TARGETS.find((target) => target.name === HOST_TARGET);
  if (host?.node === undefined) throw new Error(`no Node package for ${HOST_TARGET}`);
  const hostNode = targetNode({ ...host, node: host.node });
  const sums: string[] = [];
  for (const target of SEA_TARGETS) {
    if (target.node === undefined) {
      process.stderr.write(`build:sea: ${target.name} not built: ${target.missing ?? 'no Node package'}\n`);
      continue;
    }
    const node = targetNode({ ...target, node: target.node });
    for (const [name, bundle] of bundles) {
      const file = `${name}-${target.name}${target.suffix}`;
      const output = join(OUT, file);
      buildOne(hostNode, bundle, node, output, target.name === HOST_TARGET);
      const problem = formatProblem(readFileSync(output), target.kind);
      if (problem !== undefined) throw new Error(`${file}: ${problem}`);
      sums.push(`${sha('sha256', output, 'hex')}  ${file}`);
    }
  }
  writeFileSync(join(OUT, 'SHA256SUMS'), `${sums.join('\n')}\n`);
  process.stdout.write(`build:sea: ${readdirSync(OUT).join(', ')} in ${OUT}\n`);
}

await main();
