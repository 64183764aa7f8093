/**
 * The schema checks of input rounds in the executable, loaded when first needed (nothing heavy
 * loads before it is needed, so the executable starts fast): ajv and the 135 KB 2025-11-25 schema are about half of
 * the code the executable would otherwise compile and run at every start, and only a result that
 * says `input_required` needs them.
 *
 * scripts/bundle.ts builds src/codec/input/schemas.ts into a CommonJS file of its own,
 * `dist/bin/chunks/input-checks.cjs`, beside the chunks; run.ts passes these checks to serveStdio
 * (BridgeDeps.checks). They stay synchronous (the round driver calls them in line), and the file
 * is read by `require` on first use, or earlier by preloadInputChecks once the `initialize`
 * result is out.
 */
import { createRequire } from 'node:module';
import type { InputSchemaChecks } from '../codec/input/checks.js';
import { createLazyInputChecks } from '../codec/input/lazyChecks.js';

export { createLazyInputChecks } from '../codec/input/lazyChecks.js';
export type { LazyInputChecks } from '../codec/input/lazyChecks.js';

/** The file scripts/bundle.ts writes beside the bundle's chunks. */
export const INPUT_CHECKS_FILE = './input-checks.cjs';

const executableChecks = createLazyInputChecks(
  () =>
    (createRequire(import.meta.url)(INPUT_CHECKS_FILE) as { ajvInputChecks: InputSchemaChecks })
      .ajvInputChecks,
);

/** The executable's checks of input rounds (ajv and the schema of `chunks/input-checks.cjs`). */
export const executableInputChecks: InputSchemaChecks = executableChecks.checks;

/** Loads ajv and the schema now (after the `initialize` result, while the client reads it). */
export const preloadInputChecks = (): void => executableChecks.preload();
