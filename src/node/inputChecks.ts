/**
 * The Node default of the schema checks of input rounds (BridgeDeps.checks, README "Use the
 * library"): ajv and the 2025-11-25 schema of src/codec/input/schemas.ts, loaded by `require` on
 * the first check, not when `mcp-bridge-sdk/node` is imported. Node 20.19 and later load the ES
 * module synchronously this way, so that the checks stay synchronous.
 */
import { createRequire } from 'node:module';
import type { InputSchemaChecks } from '../codec/input/checks.js';
import { createLazyInputChecks } from '../codec/input/lazyChecks.js';

/** The module of the ajv checks, beside this file's directory in the package. */
const SCHEMAS_MODULE = '../codec/input/schemas.js';

const nodeChecks = createLazyInputChecks(
  () =>
    (createRequire(import.meta.url)(SCHEMAS_MODULE) as { ajvInputChecks: InputSchemaChecks }).ajvInputChecks,
);

/**
 * The checks of input rounds with ajv and the 2025-11-25 schema, loaded on first use: what
 * serveStdio passes by default; pass them as `checks` to createBridge or createProfileBridge.
 */
export const ajvInputChecks: InputSchemaChecks = nodeChecks.checks;

/** True once ajv and the schema are loaded (for tests of the lazy load). */
export const ajvInputChecksLoaded = (): boolean => nodeChecks.loaded();
