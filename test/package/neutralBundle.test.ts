/**
 * The runtime-neutral entries bundled for a browser (README "Use the library"): the schema checks
 * of input rounds are a dependency (BridgeDeps.checks), so that neither ajv nor the 135 KB
 * 2025-11-25 schema is in a bundle of `mcp-bridge-sdk`, `mcp-bridge-sdk/operators` or
 * `mcp-bridge-sdk/testing`; the Node entry loads them on the first input round. Bundles the
 * built entries of dist/ (needs `npm run build`).
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support.js';

/** Bundles one entry for the browser, minified as a web application ships it. */
async function browserBundle(entry: string): Promise<{ text: string; inputs: string[] }> {
  const result = await build({
    entryPoints: [`${ROOT}${entry}`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    minify: true,
    metafile: true,
    logLevel: 'silent',
  });
  return {
    text: result.outputFiles[0]!.text,
    inputs: Object.keys(result.metafile.inputs),
  };
}

/** Inputs of ajv or of the schema module and file. */
const heavy = (inputs: readonly string[]): string[] =>
  inputs.filter(
    (input) =>
      input.includes('node_modules/ajv/') ||
      input.includes('schema-2025-11-25.json') ||
      input.endsWith('codec/input/schemas.js'),
  );

/** The bundle sizes the README states ("Use the library"), with room for small changes. */
const LIMITS: Record<string, number> = {
  'dist/src/index.js': 150_000,
  'dist/operators/index.js': 100_000,
  'dist/src/testing/index.js': 60_000,
};

describe('the runtime-neutral entries bundled for a browser', () => {
  for (const [entry, limit] of Object.entries(LIMITS)) {
    it(`${entry} holds neither ajv nor the 2025-11-25 schema, and stays under ${limit / 1000} KB`, async () => {
      const { text, inputs } = await browserBundle(entry);
      expect(heavy(inputs)).toEqual([]);
      // ajv's own code (its error class, its draft-2020 meta-schema) and the schema's `$defs`.
      expect(text).not.toContain('MissingRefError');
      expect(text).not.toContain('https://json-schema.org/draft/2020-12/schema');
      expect(text).not.toContain('"ElicitRequestURLParams":{');
      expect(text).not.toContain('ElicitRequestURLParams:{');
      expect(text.length).toBeLessThan(limit);
    });
  }
});
