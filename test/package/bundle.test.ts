/**
 * The executable bundle of `npm run build` (scripts/bundle.ts), built to start fast:
 * an ESM entry with a shebang that starts the upstream before it loads the rest, RxJS from its
 * ESM build, the HTTP edge (with undici) only in a chunk that `import()` loads for a URL, ajv in a
 * file of its own required on first use, and the version written in, so that the bundle works
 * wherever it is copied. Reads esbuild's metafile (`dist/bin-meta.json`).
 * Needs the build (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, manifest } from './support.js';

interface Output {
  readonly imports: readonly { readonly path: string; readonly kind: string }[];
  readonly inputs: Readonly<Record<string, unknown>>;
}
const meta = (): Record<string, Output> =>
  (JSON.parse(readFileSync(`${ROOT}dist/bin-meta.json`, 'utf8')) as { outputs: Record<string, Output> })
    .outputs;

const ENTRY = 'dist/bin/mcp-bridge-vscode.js';

/**
 * The output file of an import of `from`: esbuild's own chunks by their path, the commands built
 * apart (scripts/bundle.ts: `serve`, `shared`, the `--shared` shim, `add`, `doctor`) by a path
 * relative to the importing file.
 */
const importedFile = (from: string, path: string): string =>
  path.startsWith('./') ? posix.join(posix.dirname(from), path) : path;

/** The output files that load with `from` (the files it imports statically, and theirs). */
function startupFiles(outputs: Record<string, Output>, from = ENTRY): string[] {
  const seen = new Set([from]);
  for (const file of seen) {
    for (const { path, kind } of outputs[file]?.imports ?? []) {
      if (kind === 'import-statement' && path.startsWith('dist/bin/')) seen.add(path);
    }
  }
  return [...seen];
}

describe('the executable bundle', () => {
  it('is an ESM file that starts with a shebang', () => {
    const text = readFileSync(`${ROOT}${ENTRY}`, 'utf8');
    expect(text.split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(text).toMatch(/^import /m);
    expect(text).not.toMatch(/^module\.exports/m);
  });

  it('takes RxJS from its ESM build only', () => {
    const inputs = Object.values(meta()).flatMap((output) => Object.keys(output.inputs));
    const rxjs = inputs.filter((input) => input.includes('node_modules/rxjs/'));
    expect(rxjs.length).toBeGreaterThan(20);
    expect(rxjs.filter((input) => !input.startsWith('node_modules/rxjs/dist/esm/'))).toEqual([]);
  });

  it('starts the upstream from an entry that loads neither RxJS, yargs, ajv nor the bridge', () => {
    const outputs = meta();
    const beforeSpawn = startupFiles(outputs).flatMap((file) => Object.keys(outputs[file]!.inputs));
    for (const input of [
      'dist/src/cli/main.js',
      'dist/src/cli/prestart.js',
      'dist/src/cli/scan.js',
      'dist/src/edges/childStart.js',
    ]) {
      expect(beforeSpawn).toContain(input);
    }
    expect(
      beforeSpawn.filter((input) =>
        /node_modules\/(rxjs|yargs|yargs-parser|ajv|undici)\/|\/src\/(bridge|node|codec)\/|\/cli\/run\.js/.test(
          input,
        ),
      ),
    ).toEqual([]);
  });

  it.each([
    ['add', 'dist/src/cli/add/runAdd.js', 'dist/src/cli/add/jsonMerge.js'],
    ['doctor', 'dist/src/cli/doctor/runDoctor.js', 'dist/src/cli/doctor/signInChecks.js'],
    ['--shared', 'dist/src/cli/sharedShim.js', 'dist/src/edges/sharedSocket/records.js'],
  ])(
    'loads for `%s` neither RxJS nor the bridge, nor the rest of the CLI (docs/install.md#install-add, docs/doctor.md, docs/shared.md)',
    (_form, entry, part) => {
      const outputs = meta();
      const later = (outputs[ENTRY]?.imports ?? []).filter((imported) => imported.kind === 'dynamic-import');
      // run.ts, add, doctor, the shim of --shared, and `shared` (chunks/shared-cli.js, a bundle apart).
      expect(later).toHaveLength(5);
      const own = later
        .map(({ path }) => importedFile(ENTRY, path))
        .filter((path) =>
          startupFiles(outputs, path).some((file) => Object.hasOwn(outputs[file]?.inputs ?? {}, entry)),
        );
      expect(own).toHaveLength(1);
      const inputs = startupFiles(outputs, own[0]).flatMap((file) =>
        Object.keys(outputs[file]?.inputs ?? {}),
      );
      expect(inputs).toContain(part);
      expect(
        inputs.filter(
          (input) =>
            input.includes('node_modules/rxjs/') ||
            input.startsWith('dist/src/bridge/') ||
            input.startsWith('dist/operators/') ||
            input === 'dist/src/cli/run.js' ||
            input === 'dist/src/node/serveStdio.js',
        ),
      ).toEqual([]);
    },
  );

  it('loads the CLI and the bridge with one import() after the spawn, without yargs, the HTTP edge, undici, the sign-in or ajv', () => {
    const outputs = meta();
    // Three import()s: the CLI for every form but `add` and `doctor`, and those two (the test above).
    const later = (outputs[ENTRY]?.imports ?? [])
      .filter((entry) => entry.kind === 'dynamic-import')
      .filter(({ path }) =>
        startupFiles(outputs, path).some((file) =>
          Object.hasOwn(outputs[file]?.inputs ?? {}, 'dist/src/cli/run.js'),
        ),
      );
    expect(later).toHaveLength(1);
    // Everything that loads before the initialize result: the entry, then the CLI chunk.
    const atStart = [...startupFiles(outputs), ...startupFiles(outputs, later[0]!.path)].flatMap((file) =>
      Object.keys(outputs[file]!.inputs),
    );
    expect(atStart).toContain('dist/src/cli/run.js');
    expect(atStart).toContain('dist/src/node/serveStdio.js');
    // The sign-in (src/oauth, openid-client) loads only for a URL upstream or logout, too; only
    // the pure URL rules of src/oauth/authorizationUrl.js check --client-issuer at parse time.
    // ajv and the 2025-11-25 schema load on the first input round (src/cli/inputChecks.ts).
    expect(
      atStart.filter(
        (input) =>
          input.includes('undici') ||
          input.includes('/edges/http/') ||
          (input.includes('/oauth/') && input !== 'dist/src/oauth/authorizationUrl.js') ||
          input.includes('openid-client') ||
          // yargs loads for the forms other than `-- <command>` only (src/cli/commandForm.ts).
          input.includes('node_modules/yargs') ||
          input.includes('node_modules/ajv/') ||
          input.includes('schema-2025-11-25.json') ||
          input === 'dist/src/codec/input/schemas.js',
      ),
    ).toEqual([]);
    // The dynamic imports of the CLI chunk and of the chunks it loads with it (a module that two
    // lazy chunks share, such as the upstream connector, sits in a common chunk).
    const lazy = startupFiles(outputs, later[0]!.path).flatMap((file) =>
      (outputs[file]?.imports ?? []).filter((entry) => entry.kind === 'dynamic-import'),
    );
    // A lazy chunk may share its code (undici) with another lazy chunk through a common chunk.
    const lazyInputs = lazy.flatMap(({ path }) =>
      startupFiles(outputs, path).flatMap((file) => Object.keys(outputs[file]?.inputs ?? {})),
    );
    expect(lazyInputs).toContain('dist/src/edges/http/httpUpstream.js');
    expect(lazyInputs).toContain('dist/src/cli/args.js');
    expect(lazyInputs.some((input) => input.startsWith('node_modules/yargs/'))).toBe(true);
    expect(lazyInputs.some((input) => input.startsWith('node_modules/undici/'))).toBe(true);
  });

  it('keeps ajv and the schema in chunks/input-checks.cjs, beside the chunk that requires it on first use', () => {
    const outputs = meta();
    const requirer = Object.keys(outputs).filter((file) =>
      Object.keys(outputs[file]!.inputs).includes('dist/src/cli/inputChecks.js'),
    );
    // The stdio path's chunk, and the commands built apart that run a bridge (`serve`, `shared`).
    expect(requirer).toHaveLength(3);
    for (const file of requirer) expect(file).toMatch(/^dist\/bin\/chunks\/[^/]+\.js$/);
    const load = createRequire(`${ROOT}dist/bin/chunks/`);
    const { ajvInputChecks } = load('./input-checks.cjs') as {
      ajvInputChecks: { matchesSpec: (name: string, value: unknown) => boolean };
    };
    expect(ajvInputChecks.matchesSpec('ElicitResult', { action: 'cancel' })).toBe(true);
    expect(ajvInputChecks.matchesSpec('ElicitResult', { action: 'maybe' })).toBe(false);
  });

  it('prints the package version when copied away from package.json (written in at bundle time)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-bundle-'));
    try {
      cpSync(`${ROOT}dist/bin`, join(dir, 'bin'), { recursive: true });
      const result = spawnSync(process.execPath, [join(dir, 'bin', 'mcp-bridge-vscode.js'), '--version'], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(result.stdout).toBe(`mcp-bridge-vscode ${manifest().version}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
