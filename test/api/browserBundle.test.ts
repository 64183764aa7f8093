import { builtinModules } from 'node:module';
import { build } from 'esbuild';
import type { Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';

// The neutral entries (docs/architecture.md#architecture-packages) and everything they import use no Node built-in
// module, so they bundle for a browser (an extension, a worker, Deno).
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

async function nodeImportsOf(entry: string): Promise<{ imports: string[]; inputs: string[] }> {
  const imports: string[] = [];
  const recordBuiltins: Plugin = {
    name: 'record-node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        const builtin = args.path.startsWith('node:') || BUILTINS.has(args.path.split('/')[0] ?? '');
        if (!builtin) return undefined;
        imports.push(`${args.path} (from ${args.importer.replace(process.cwd() + '/', '')})`);
        return { path: args.path, external: true };
      });
    },
  };
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [recordBuiltins],
  });
  return { imports, inputs: Object.keys(result.metafile.inputs) };
}

describe('runtime-neutral entries (browser bundle)', () => {
  it.each([
    ['mcp-bridge-sdk', 'src/index.ts'],
    ['mcp-bridge-sdk/operators', 'operators/index.ts'],
    ['mcp-bridge-sdk/testing', 'src/testing/index.ts'],
  ])('%s bundles for the browser without any Node built-in module', async (_name, entry) => {
    const { imports, inputs } = await nodeImportsOf(entry);
    expect(imports).toEqual([]);
    // The bundle really followed the entry's imports (the check cannot pass on an empty bundle).
    expect(inputs.some((input) => input.includes('node_modules/rxjs/'))).toBe(true);
  });

  it.each([
    ['mcp-bridge-sdk', 'src/index.ts'],
    ['mcp-bridge-sdk/operators', 'operators/index.ts'],
  ])('%s loads neither ajv nor the 2025-11-25 schema: the checks are passed in', async (_name, entry) => {
    const { inputs } = await nodeImportsOf(entry);
    const heavy = (all: string[]): string[] =>
      all.filter((input) => input.includes('/ajv/') || input.endsWith('schema-2025-11-25.json'));
    expect(heavy(inputs)).toEqual([]);
    // The module of the ajv checks does load them: the check sees them when they are there.
    const { inputs: checksInputs } = await nodeImportsOf('src/codec/input/schemas.ts');
    expect(heavy(checksInputs).length).toBeGreaterThan(1);
  });

  it('the Node entry is not neutral: the check finds its Node imports', async () => {
    const { imports } = await nodeImportsOf('src/node/index.ts');
    expect(imports.some((line) => line.startsWith('node:child_process'))).toBe(true);
  });
});
