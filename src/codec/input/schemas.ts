/**
 * The schema checks of input rounds with ajv and the 2025-11-25 schema, both imported here: what
 * the tests and the executable's `chunks/input-checks.cjs` (scripts/bundle.ts) use. The Node
 * entry loads the same checks on first use (src/node/inputChecks.ts).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import spec from './schema-2025-11-25.json' with { type: 'json' };
import { createAjvInputChecks } from './ajvChecks.js';
import type { InputSchemaChecks, SpecDefinition } from './checks.js';

export type { SpecDefinition } from './checks.js';
export { MAX_CACHED_FORM_VALIDATORS } from './ajvChecks.js';

const ajvChecks = createAjvInputChecks(Ajv2020, spec);

/** True when `value` matches the definition `name` of the 2025-11-25 schema. */
export const matchesSpec = (name: SpecDefinition, value: unknown): boolean =>
  ajvChecks.matchesSpec(name, value);

/** The compiled validator of a form's `requestedSchema`, or undefined when it does not compile. */
export const formValidator = (requestedSchema: object): ValidateFunction | undefined =>
  ajvChecks.formValidator(requestedSchema);

/** The number of cached form validators (for tests of the bound). */
export const cachedFormValidatorCount = (): number => ajvChecks.cachedFormValidatorCount();

/** The checks of the input rounds with ajv and the 2025-11-25 schema. */
export const ajvInputChecks: InputSchemaChecks = ajvChecks.checks;
