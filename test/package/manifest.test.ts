/**
 * What the package declares and ships ("Package"): `engines`, `bin`, `exports`, `files`
 * and `prepack` in package.json, and the file list of `npm pack`: the built JavaScript and types
 * of the public entries with every module they import, the executable bundle and its chunks, the
 * README, CHANGELOG, LICENSE and NOTICE; no sources, no source maps (their sources do not ship),
 * no tests, benchmarks or build scripts.
 * Needs the build (`npm run build`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, posix } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, manifest, packedFiles } from './support.js';

let files: string[];
beforeAll(() => {
  files = packedFiles();
}, 60_000);

/** Every relative import and export of a built file (`.js` or `.d.ts`), as package paths. */
function relativeImports(path: string): string[] {
  const text = readFileSync(`${ROOT}${path}`, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm),
  ];
  return specifiers.map(([, specifier]) => posix.normalize(posix.join(dirname(path), specifier!)));
}

/** The files reachable from `entries` by relative imports (the `.d.ts` of a `.js` import too). */
function closure(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
    if (seen.has(path)) continue;
    seen.add(path);
    for (const target of relativeImports(path)) {
      queue.push(path.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target);
    }
  }
  return seen;
}

describe('package.json', () => {
  it('declares the engines, the executable, the entries and the build before packing', () => {
    const pkg = manifest();
    expect(pkg.type).toBe('module');
    expect(pkg.engines).toEqual({ node: '>=20.19' });
    expect(pkg.bin).toEqual({
      'mcp-bridge-vscode': 'dist/bin/mcp-bridge-vscode.js',
      'mcp-bridge': 'dist/bin/mcp-bridge.js',
    });
    expect(pkg.exports).toEqual({
      '.': { types: './dist/src/index.d.ts', default: './dist/src/index.js' },
      './operators': { types: './dist/operators/index.d.ts', default: './dist/operators/index.js' },
      './testing': { types: './dist/src/testing/index.d.ts', default: './dist/src/testing/index.js' },
      './embed': { types: './dist/src/embed/index.d.ts', default: './dist/src/embed/index.js' },
      './node': { types: './dist/src/node/index.d.ts', default: './dist/src/node/index.js' },
    });
    expect(pkg.scripts?.prepack).toBe('npm run build');
    expect(pkg.scripts?.build).toBe('tsc -p tsconfig.build.json && node dist/scripts/bundle.js');
    // The bundler and the linters are for the build only; cross-spawn runs `.cmd` upstreams on Windows.
    expect(Object.keys(pkg.dependencies ?? {})).toContain('cross-spawn');
    expect(Object.keys(pkg.dependencies ?? {})).not.toContain('esbuild');
  });
});

describe('npm pack', () => {
  it('ships the top-level documents and the manifest', () => {
    for (const name of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'NOTICE']) {
      expect(files).toContain(name);
    }
    expect(files.filter((path) => !path.includes('/'))).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'NOTICE',
      'README.md',
      'package.json',
    ]);
  });

  it('ships the executable bundles with their lazily loaded chunks, and nothing else under dist/bin', () => {
    const bundle = files.filter((path) => path.startsWith('dist/bin/'));
    expect(bundle).toContain('dist/bin/mcp-bridge-vscode.js');
    expect(bundle).toContain('dist/bin/mcp-bridge.js');
    // ESM files, and the one CommonJS file the bridge requires for its input checks.
    expect(bundle.filter((path) => !path.endsWith('.js'))).toEqual(['dist/bin/chunks/input-checks.cjs']);
    // The chunks the bundle imports, statically or with import(), all ship (esbuild's metafile).
    const meta = JSON.parse(readFileSync(`${ROOT}dist/bin-meta.json`, 'utf8')) as {
      outputs: Record<string, { imports: { path: string; external?: boolean }[] }>;
    };
    const reachable = new Set(['dist/bin/mcp-bridge-vscode.js', 'dist/bin/mcp-bridge.js']);
    const external = new Set<string>();
    for (const path of reachable) {
      for (const { path: target, external: apart } of meta.outputs[path]?.imports ?? []) {
        if (target.startsWith('dist/bin/')) reachable.add(target);
        // The commands built as bundles of their own among the chunks (scripts/bundle.ts), each
        // imported by a path relative to the importing file.
        if (apart === true && target.startsWith('./')) {
          const file = posix.join(posix.dirname(path), target);
          external.add(file);
          reachable.add(file);
        }
      }
    }
    expect(reachable.size).toBeGreaterThan(1);
    expect([...external].sort()).toEqual([
      'dist/bin/chunks/add.js',
      'dist/bin/chunks/doctor.js',
      'dist/bin/chunks/serve-http.js',
      'dist/bin/chunks/shared-cli.js',
      'dist/bin/chunks/shared-shim.js',
    ]);
    expect([...reachable, 'dist/bin/chunks/input-checks.cjs'].sort()).toEqual(bundle);
  });

  it('ships every file the public entries import, for JavaScript and for types', () => {
    const pkg = manifest();
    const entries = Object.values(pkg.exports ?? {}).flatMap((entry) => [entry.default, entry.types]);
    const needed = closure(entries.map((path) => path.replace(/^\.\//, '')));
    expect(needed.size).toBeGreaterThan(40);
    const missing = [...needed].filter((path) => !files.includes(path));
    expect(missing).toEqual([]);
    for (const path of needed) expect(existsSync(`${ROOT}${path}`), path).toBe(true);
  });

  it('ships no sources, source maps, tests, benchmarks, build scripts or the unbundled CLI', () => {
    const unwanted = files.filter(
      (path) =>
        path.endsWith('.map') ||
        (path.endsWith('.ts') && !path.endsWith('.d.ts')) ||
        /^(src|test|bench|scripts|operators|marbles|site)\//.test(path) ||
        /^dist\/(test|bench|scripts|src\/cli)\//.test(path) ||
        path === 'dist/bin-meta.json',
    );
    expect(unwanted).toEqual([]);
    // Only built JavaScript, declarations and the JSON schemas the code imports under dist/, and
    // the CommonJS file of the input checks.
    expect(
      files.filter(
        (path) =>
          path.startsWith('dist/') &&
          !/\.(js|d\.ts|json)$/.test(path) &&
          path !== 'dist/bin/chunks/input-checks.cjs',
      ),
    ).toEqual([]);
  });
});
