/**
 * Every public operator is one the executable runs: each rule of a forwarded request has one
 * implementation, and the product runs exactly the public operators (README.md, docs/testing.md).
 * The CLI entries are bundled as scripts/bundle.ts does (with the metafile, not minified), and
 * each operator exported by operators/index.ts must put code into that bundle and be called from
 * src/ or from the internals of the operators, not only re-exported there. driveInputRounds is
 * an Observable around its round driver, operators/internal/driveRounds.ts, which forwardRequest
 * runs for every request (round 1 included): for it, the driver is what the bundle must hold
 * and what forwardRequest's internals must call, and the operator must run that same driver.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import * as operators from '../../operators/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The operators the executable runs today; a new public operator joins this list. */
const USED = [
  'decodeLines',
  'driveInputRounds',
  'encodeFrames',
  'forwardRequest',
  'limitInFlight',
  'reopenListen',
  'retryRefusedVersion',
  'withDeadline',
];

/** An operator the executable runs through its driver: the driver's file and function. */
const DRIVERS: Readonly<
  Record<
    string,
    { readonly file: string; readonly name: string; readonly run: { readonly file: string; readonly name: string } }
  >
> = {
  driveInputRounds: {
    file: 'operators/internal/driveRounds.ts',
    name: 'driveRounds',
    run: { file: 'operators/internal/inputRoundsRun.ts', name: 'runInputRounds' },
  },
};

/** The value exports of operators/index.ts that are operators (the rest are their defaults). */
const publicOperators = (): string[] =>
  Object.entries(operators)
    .filter(([, value]) => typeof value === 'function')
    .map(([name]) => name)
    .sort();

/** The bytes each input file puts into the bundle of both CLI entries (its dynamic chunks included). */
async function bundledBytes(): Promise<Map<string, number>> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['src/cli/main.ts', 'src/cli/mcpBridge.ts'],
    outdir: 'dist/operators-used',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    packages: 'external',
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const bytes = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      bytes.set(path, (bytes.get(path) ?? 0) + input.bytesInOutput);
    }
  }
  return bytes;
}

/** The .ts files under `dir`, recursively, relative to the root. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(`${dir}/${entry.name}`)
      : entry.name.endsWith('.ts')
        ? [`${dir}/${entry.name}`]
        : [],
  );
}

/** The files that call `name(…)` (a re-export or an import alone does not count). */
function callersIn(sources: ReadonlyMap<string, string>, name: string): string[] {
  const call = new RegExp(`(?<![\\w.'"])${name}(<[^>]*>)?\\(`);
  return [...sources].filter(([, text]) => call.test(text)).map(([path]) => path);
}

describe('the public operators are the ones the executable runs', () => {
  let bytes: Map<string, number>;
  const sources = new Map(
    [...sourceFiles('src'), ...sourceFiles('operators/internal')].map((path) => [
      path,
      readFileSync(join(root, path), 'utf8'),
    ]),
  );
  beforeAll(async () => {
    bytes = await bundledBytes();
  }, 60_000);

  it('operators/index.ts exports exactly the operators the executable runs', () => {
    expect(publicOperators()).toEqual(USED);
  });

  it.each(publicOperators())('%s is in the bundle of the executable and called from src/ or an operator', (name) => {
    const driver = DRIVERS[name];
    const file = driver === undefined ? `operators/${name}.ts` : driver.file;
    const callee = driver === undefined ? name : driver.name;
    expect(bytes.get(file) ?? 0, `${file} in the bundle`).toBeGreaterThan(0);
    expect(callersIn(sources, callee), `a call of ${callee} in src/ or operators/internal/`).not.toEqual([]);
    if (driver !== undefined) {
      // The operator's subscription (driver.run) runs that same driver.
      const own = new Map([[`operators/${name}.ts`, readFileSync(join(root, `operators/${name}.ts`), 'utf8')]]);
      expect(callersIn(own, driver.run.name), `operators/${name}.ts runs ${driver.run.name}`).toEqual([
        `operators/${name}.ts`,
      ]);
      expect(callersIn(sources, callee), `${driver.run.file} runs ${callee}`).toContain(driver.run.file);
    }
  });
});
