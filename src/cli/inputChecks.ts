/**
 * The schema checks of input rounds in the executable, loaded when first needed (issue 13,
 * "Nothing heavy before it is needed"): ajv and the 135 KB 2025-11-25 schema are about half of
 * the code the executable would otherwise compile and run at every start, and only a result that
 * says `input_required` needs them.
 *
 * scripts/bundle.ts builds src/codec/input/schemas.ts into a CommonJS file of its own,
 * `dist/bin/chunks/input-checks.cjs`, and points the bridge's import of `schemas.js` at this
 * module instead: the checks stay synchronous (the round driver calls them in line), and the file
 * is read by `require` on first use, or earlier by preloadInputChecks once the `initialize`
 * result is out. The library entries keep the static ajvInputChecks of schemas.ts.
 */
import { createRequire } from 'node:module';
import type { InputSchemaChecks } from '../codec/input/checks.js';

/** Checks that load their implementation on first use, and the means to load it before. */
export interface LazyInputChecks {
  readonly checks: InputSchemaChecks;
  /** Loads the implementation now, if it is not loaded yet. */
  preload(): void;
  /** True once the implementation is loaded. */
  loaded(): boolean;
}

/** Checks that call `load` once, on first use or at preload, and then delegate to its result. */
export function createLazyInputChecks(load: () => InputSchemaChecks): LazyInputChecks {
  let implementation: InputSchemaChecks | undefined;
  const get = (): InputSchemaChecks => (implementation ??= load());
  return {
    checks: Object.freeze<InputSchemaChecks>({
      matchesSpec: (name, value) => get().matchesSpec(name, value),
      formValidator: (requestedSchema) => get().formValidator(requestedSchema),
    }),
    preload: () => {
      try {
        get();
      } catch {
        // Not now: the first check loads again, and its failure is that request's error.
      }
    },
    loaded: () => implementation !== undefined,
  };
}

/** The file scripts/bundle.ts writes beside the bundle's chunks. */
export const INPUT_CHECKS_FILE = './input-checks.cjs';

const executableChecks = createLazyInputChecks(
  () =>
    (createRequire(import.meta.url)(INPUT_CHECKS_FILE) as { ajvInputChecks: InputSchemaChecks })
      .ajvInputChecks,
);

/** The executable's ajvInputChecks (the name the bridge imports from schemas.js). */
export const ajvInputChecks: InputSchemaChecks = executableChecks.checks;

/** Loads ajv and the schema now (after the `initialize` result, while the client reads it). */
export const preloadInputChecks = (): void => executableChecks.preload();
