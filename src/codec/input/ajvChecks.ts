/**
 * The JSON Schema checks of the input-request codec with ajv: the 2025-11-25 definitions of the
 * requests the bridge sends to the client and of the answers it gets, and the `requestedSchema`
 * of forms. Given the ajv class and the schema, so that this module loads neither: schemas.ts
 * passes them by import, src/node/inputChecks.ts by `require` on the first check. Pure: no
 * rxjs, no node:* (ajv compiles in memory).
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { InputSchemaChecks, SpecDefinition } from './checks.js';

const SPEC_KEY = 'mcp-2025-11-25';

/** Most compiled form validators kept; the oldest unused one is dropped first. */
export const MAX_CACHED_FORM_VALIDATORS = 64;

/** The ajv checks of one schema, and their parts (for tests). */
export interface AjvInputChecks {
  readonly checks: InputSchemaChecks;
  /** True when `value` matches the definition `name` of the 2025-11-25 schema. */
  matchesSpec(name: SpecDefinition, value: unknown): boolean;
  /** The compiled validator of a form's `requestedSchema`, or undefined when it does not compile. */
  formValidator(requestedSchema: object): ValidateFunction | undefined;
  /** The number of cached form validators (for tests of the bound). */
  cachedFormValidatorCount(): number;
}

interface CachedValidator {
  readonly schema: object;
  readonly validate: ValidateFunction;
}

function isDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isDateTime(value: string): boolean {
  const match = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(value);
  if (match === null || !isDate(match[1] ?? '')) return false;
  return Number(match[2]) < 24 && Number(match[3]) < 60 && Number(match[4]) < 61;
}

/** The checks of the input rounds with the ajv class `Ajv` and the 2025-11-25 schema `spec`. */
export function createAjvInputChecks(Ajv: typeof Ajv2020, spec: object): AjvInputChecks {
  /*
   * Both ajv instances are built on first use, not at creation: adding the 2025-11-25 schema and
   * the formats costs about 150 ms, a tenth of the bridge's start-up, and only input rounds need them.
   */
  let specAjv: Ajv2020 | undefined;
  let formAjv: Ajv2020 | undefined;
  const formValidators = new Map<string, CachedValidator>();

  /** Formats are not checked on the protocol shapes: `uri` there is informative only. */
  const specChecker = (): Ajv2020 => {
    if (specAjv === undefined) {
      specAjv = new Ajv({ strict: true, allowUnionTypes: true, validateFormats: false, logger: false });
      specAjv.addSchema(spec, SPEC_KEY);
    }
    return specAjv;
  };

  /**
   * Forms: not strict, because servers add keywords of their own (`enumNames`); formats of the
   * 2025-11-25 `StringSchema` are checked with small rules of our own.
   */
  const formChecker = (): Ajv2020 => {
    if (formAjv === undefined) {
      formAjv = new Ajv({ strict: false, allowUnionTypes: true, logger: false, allErrors: false });
      formAjv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
      formAjv.addFormat('date', (value: string) => isDate(value));
      formAjv.addFormat('date-time', (value: string) => isDateTime(value));
      formAjv.addFormat('uri', (value: string) => /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value));
    }
    return formAjv;
  };

  const matchesSpec = (name: SpecDefinition, value: unknown): boolean => {
    const validate = specChecker().getSchema(`${SPEC_KEY}#/$defs/${name}`);
    if (validate === undefined) throw new Error(`no definition ${name} in the 2025-11-25 schema`);
    return validate(value) === true;
  };

  /**
   * `$schema`, `$id` and `$async` are left out: forms name meta-schemas ajv does not load, an
   * `$id` would collide with the same form compiled again, and `$async` would make the check a
   * Promise. Compiled validators are cached by the JSON text of the schema; the cache is bounded,
   * and a dropped entry is removed from ajv as well.
   */
  const formValidator = (requestedSchema: object): ValidateFunction | undefined => {
    const {
      $schema: _schema,
      $id: _id,
      $async: _async,
      ...schema
    } = requestedSchema as Record<string, unknown>;
    const cacheKey = JSON.stringify(schema);
    const cached = formValidators.get(cacheKey);
    if (cached !== undefined) {
      formValidators.delete(cacheKey);
      formValidators.set(cacheKey, cached);
      return cached.validate;
    }
    const ajv = formChecker();
    let validate: ValidateFunction;
    try {
      validate = ajv.compile(schema);
    } catch {
      ajv.removeSchema(schema);
      return undefined;
    }
    formValidators.set(cacheKey, { schema, validate });
    if (formValidators.size > MAX_CACHED_FORM_VALIDATORS) {
      const [oldestKey, oldest] = formValidators.entries().next().value ?? [];
      if (oldestKey !== undefined && oldest !== undefined) {
        formValidators.delete(oldestKey);
        ajv.removeSchema(oldest.schema);
      }
    }
    return validate;
  };

  return {
    checks: Object.freeze<InputSchemaChecks>({
      matchesSpec,
      formValidator: (requestedSchema: object) => {
        const validate = formValidator(requestedSchema);
        return validate === undefined ? undefined : (value: unknown) => validate(value) === true;
      },
    }),
    matchesSpec,
    formValidator,
    cachedFormValidatorCount: () => formValidators.size,
  };
}
