/**
 * Schema checks whose implementation loads on first use: the checks stay synchronous (the round
 * driver calls them in line), and what they need (ajv and the 135 KB 2025-11-25 schema) is read
 * only when an input round needs it. Pure: `load` is the caller's.
 */
import type { InputSchemaChecks } from './checks.js';

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
