/**
 * Embedded mode: one server process serves MCP 2025-11-25 (through the bridge) and 2026-07-28 (the
 * server's own transport) on one stdio connection (reference-behaviors.md §7). Node only, and it
 * needs `@modelcontextprotocol/server` at run time.
 */
export { serveDualEra } from './serveDualEra.js';
export type { DualEraHandle, ServeDualEraOptions } from './serveDualEra.js';
export type { SelectedEra } from './opening.js';
export { dualEra } from './dualEra.js';
export type { DualEraConfig, DualEraOutput } from './dualEra.js';
export { EMBEDDED_LIMITS } from './legacyPath.js';
