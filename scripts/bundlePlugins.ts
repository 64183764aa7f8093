/**
 * The esbuild plugins, banner and settings that the package bundle (scripts/bundle.ts) and the single
 * executables (scripts/sea.ts, docs/install.md#install-executable) share.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Plugin } from 'esbuild';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(join(ROOT, 'package.json'));

/**
 * CommonJS dependencies (ajv, undici) `require()` Node built-ins: the banner gives the bundle a
 * real `require`.
 */
export const REQUIRE_BANNER =
  "import { createRequire as __bridgeCreateRequire } from 'node:module';\nconst require = __bridgeCreateRequire(import.meta.url);";

/**
 * The esbuild settings every ESM bundle of the executable shares (scripts/bundle.ts, and each
 * single executable's file in scripts/sea.ts): Node 20.19, a real `require` for the CommonJS
 * dependencies, licences at the end.
 */
export const NODE_ESM = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  banner: { js: REQUIRE_BANNER },
  legalComments: 'eof',
  logLevel: 'warning',
} as const satisfies BuildOptions;

/** `rxjs` and `rxjs/operators` to the files of RxJS's ESM build, whatever the conditions say. */
export const rxjsEsm: Plugin = {
  name: 'rxjs-esm',
  setup(plugin) {
    const esm = join(dirname(require.resolve('rxjs/package.json')), 'dist/esm');
    plugin.onResolve({ filter: /^rxjs(\/operators)?$/ }, (args) => ({
      path: join(esm, args.path === 'rxjs' ? 'index.js' : 'operators/index.js'),
    }));
  },
};

/**
 * `jsonc-parser` (the settings editor of `add`, src/cli/add/jsonMerge.ts) to its ESM build: its
 * `main` is a UMD file whose `require('./impl/…')` calls esbuild cannot follow.
 */
export const jsoncEsm: Plugin = {
  name: 'jsonc-esm',
  setup(plugin) {
    const esm = join(dirname(require.resolve('jsonc-parser/package.json')), 'lib/esm/main.js');
    plugin.onResolve({ filter: /^jsonc-parser$/ }, () => ({ path: esm }));
  },
};
