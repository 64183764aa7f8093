/**
 * Bundles the executables `mcp-bridge-vscode` and `mcp-bridge` into ESM files of `dist/bin/`,
 * from the compiled `dist/src/cli/main.js` and `dist/src/cli/mcpBridge.js` ("Fast start", "Package").
 *
 * - The entry files hold only what starts the upstream command (main.ts, prestart.ts: the pre-scan
 *   and the spawn); the CLI and the bridge (run.ts) are a chunk that the entry `import()`s after
 *   the spawn, so that the child's start overlaps their loading.
 * - ajv and the 2025-11-25 schema are not in the chunks: the bridge is given its schema checks
 *   (BridgeDeps.checks), and the executable's (src/cli/inputChecks.ts) `require` them on first
 *   use from `chunks/input-checks.cjs`, a CommonJS bundle of schemas.js built here too.
 * - RxJS resolves to its ESM build (`dist/esm`): on Node its `exports` pick the CommonJS build,
 *   which loads every operator file one by one and cannot be scope-hoisted.
 * - Code splitting keeps each `import()` lazy: the HTTP edge (and undici) lands in a chunk of
 *   `dist/bin/chunks/` that only the URL form loads.
 * - The package version is written in at bundle time (`MCP_BRIDGE_VERSION`, see
 *   src/cli/version.ts): the bundle does not sit where `../../../package.json` is.
 * - OpenTelemetry (`@opentelemetry/*`) stays outside every bundle: src/telemetry/start.ts loads
 *   it with `import()` from node_modules only when tracing is on (docs/observability.md).
 * - CommonJS dependencies (ajv, undici) `require()` Node built-ins: the banner gives the bundle a
 *   real `require`.
 *
 * Run by `npm run build` after `tsc`: `node dist/scripts/bundle.js`.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { build } from 'esbuild';
import type { Plugin } from 'esbuild';
import { jsoncEsm, NODE_ESM, ROOT as root, rxjsEsm } from './bundlePlugins.js';

const outdir = join(root, 'dist/bin');

/**
 * `mcp-bridge serve` (src/cli/serveHttpCli.ts) is a bundle of its own, `chunks/serve-http.js`,
 * which run.ts `import()`s: were it a chunk of the same build, the modules it shares with the
 * stdio path would be split into more, smaller chunks that every stdio start loads (measured:
 * 4 % more instructions until the `initialize` result). It carries its own copy of what it uses.
 */
const SERVE_HTTP_FILE = 'serve-http.js';
const serveApart: Plugin = {
  name: 'serve-apart',
  setup(plugin) {
    plugin.onResolve({ filter: /\/serveHttpCli\.js$/ }, () => ({
      path: `./${SERVE_HTTP_FILE}`,
      external: true,
    }));
  },
};

/**
 * The other commands that main.ts `import()`s, each a bundle of its own in `chunks/` for the same
 * reason: `mcp-bridge shared` (the shared process of docs/shared.md, which uses most of the stdio
 * path), the shim of `--shared`, `add` and `doctor`. As chunks of the main build they split the
 * small modules they share with the stdio path into a file each, which every stdio start loads:
 * 20 files before the `initialize` result instead of 16 (measured: 2 % more instructions until
 * that result, bench/README.md "Start-up files").
 */
const ENTRY_APART = [
  { source: 'cli/sharedCli.js', file: 'shared-cli.js' },
  { source: 'cli/sharedShim.js', file: 'shared-shim.js' },
  { source: 'cli/add/runAdd.js', file: 'add.js' },
  { source: 'cli/doctor/runDoctor.js', file: 'doctor.js' },
] as const;
const entryApart: Plugin = {
  name: 'entry-apart',
  setup(plugin) {
    // Import specifiers of main.ts, which is the entry file: the path is relative to dist/bin/.
    for (const { source, file } of ENTRY_APART) {
      // The specifier's file name is the source's (`./add/runAdd.js` for `cli/add/runAdd.js`).
      const filter = new RegExp(`/${posix.basename(source).replace('.', '\\.')}$`);
      plugin.onResolve({ filter }, (args) =>
        args.kind === 'entry-point' ? undefined : { path: `./chunks/${file}`, external: true },
      );
    }
  },
};

/** OpenTelemetry is never bundled: it loads from node_modules only when tracing is on (docs/observability.md). */
const OTEL_EXTERNAL = ['@opentelemetry/*'];

const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  ...NODE_ESM,
  entryPoints: {
    'mcp-bridge-vscode': join(root, 'dist/src/cli/main.js'),
    // The generic profile: it selects its profile, then loads the same CLI module.
    'mcp-bridge': join(root, 'dist/src/cli/mcpBridge.js'),
  },
  outdir,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  define: { MCP_BRIDGE_VERSION: JSON.stringify(version) },
  plugins: [rxjsEsm, jsoncEsm, serveApart, entryApart],
  external: OTEL_EXTERNAL,
  metafile: true,
});
/** A bundle of its own in chunks/ (serveApart, entryApart), with its metafile. */
const apart = (source: string, file: string, plugins: Plugin[]) =>
  build({
    ...NODE_ESM,
    entryPoints: [join(root, 'dist/src', source)],
    outfile: join(outdir, 'chunks', file),
    define: { MCP_BRIDGE_VERSION: JSON.stringify(version) },
    plugins,
    external: OTEL_EXTERNAL,
    metafile: true,
  });
const aparts = [
  await apart('cli/serveHttpCli.js', SERVE_HTTP_FILE, [rxjsEsm]),
  ...(await Promise.all(
    ENTRY_APART.map(({ source, file }) => apart(source, file, [rxjsEsm, jsoncEsm, serveApart])),
  )),
];
// The file src/cli/inputChecks.ts requires beside the chunks: one CommonJS file, ajv and the schema.
await build({
  entryPoints: [join(root, 'dist/src/codec/input/schemas.js')],
  outfile: join(outdir, 'chunks/input-checks.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  legalComments: 'eof',
  logLevel: 'warning',
});
// Which input went into which output file, of every build: the package tests check that the
// start-up files hold RxJS's ESM build and no HTTP edge, and what each command loads.
const builds = [result, ...aparts];
const metafile = {
  inputs: Object.fromEntries(builds.flatMap((each) => Object.entries(each.metafile.inputs))),
  outputs: Object.fromEntries(builds.flatMap((each) => Object.entries(each.metafile.outputs))),
};
writeFileSync(join(root, 'dist/bin-meta.json'), `${JSON.stringify(metafile, null, 1)}\n`);
