/**
 * The Node default of the schema checks of input rounds (BridgeDeps.checks, README "Use the
 * library"): ajv and the 2025-11-25 schema, loaded by `require` on the first check, not when
 * `mcp-bridge-sdk/node` is imported. ajv is CommonJS and the schema a JSON file, so the load is
 * synchronous and the checks stay synchronous (the round driver calls them in line).
 */
import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { createAjvInputChecks } from '../codec/input/ajvChecks.js';
import type { InputSchemaChecks } from '../codec/input/checks.js';
import { createLazyInputChecks } from '../codec/input/lazyChecks.js';

const nodeChecks = createLazyInputChecks(() => {
  const require = createRequire(import.meta.url);
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
  const spec = require('../codec/input/schema-2025-11-25.json') as object;
  return createAjvInputChecks(Ajv, spec).checks;
});

/**
 * The checks of input rounds with ajv and the 2025-11-25 schema, loaded on first use: what
 * serveStdio and serveDualEra pass by default; pass them as `checks` to createBridge or
 * createProfileBridge.
 */
export const ajvInputChecks: InputSchemaChecks = nodeChecks.checks;

/** True once ajv and the schema are loaded (for tests of the lazy load). */
export const ajvInputChecksLoaded = (): boolean => nodeChecks.loaded();
