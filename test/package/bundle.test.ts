/**
 * The executable bundle of `npm run build` (scripts/bundle.ts; issue 13 "Fast start", issue 15):
 * one ESM file with a shebang, RxJS from its ESM build, the HTTP edge (with undici) only in a chunk
 * that `import()` loads for a URL, and the version written in, so that the bundle works wherever
 * it is copied. Reads esbuild's metafile (`dist/bin-meta.json`).
 * Needs the build (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** The output files loaded at start-up: the entry and what it imports statically, transitively. */
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

  it('loads the HTTP edge, undici and the sign-in only through import(), not at start-up', () => {
    const outputs = meta();
    const atStart = startupFiles(outputs).flatMap((file) => Object.keys(outputs[file]!.inputs));
    expect(atStart).toContain('dist/src/cli/main.js');
    // The sign-in (src/oauth, openid-client) loads only for a URL upstream or logout, too; only
    // the pure URL rules of src/oauth/authorizationUrl.js check --client-issuer at parse time.
    expect(
      atStart.filter(
        (input) =>
          input.includes('undici') ||
          input.includes('/edges/http/') ||
          (input.includes('/oauth/') && input !== 'dist/src/oauth/authorizationUrl.js') ||
          input.includes('openid-client'),
      ),
    ).toEqual([]);
    const lazy = (outputs[ENTRY]?.imports ?? []).filter((entry) => entry.kind === 'dynamic-import');
    // A lazy chunk may share its code (undici) with another lazy chunk through a common chunk.
    const lazyInputs = lazy.flatMap(({ path }) =>
      startupFiles(outputs, path).flatMap((file) => Object.keys(outputs[file]?.inputs ?? {})),
    );
    expect(lazyInputs).toContain('dist/src/edges/http/httpUpstream.js');
    expect(lazyInputs.some((input) => input.startsWith('node_modules/undici/'))).toBe(true);
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
