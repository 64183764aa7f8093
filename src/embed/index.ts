/**
 * Embedded mode: one server process serves MCP 2025-11-25 (through the bridge's front end) and
 * 2026-07-28 (the server's own transport, the SDK's `serveStdio`) on one stdio connection; the
 * first request selects the path (docs/embedded.md#embedded-selection). Node only, and it needs
 * `@modelcontextprotocol/server` at run time.
 *
 * Decisions where the reference names zig-sdk behaviour that the TypeScript SDK does not have:
 * - `serveStdio` never sees bytes here, so the modern path answers bad lines itself: malformed
 *   JSON and invalid UTF-8 get -32700 with id null, a line that is not a message or is too deep
 *   -32600 with its recovered id (the bridge's error table); a line above the limit is dropped.
 * - A later `initialize` on the modern path, and a `server/discover` without the 2026-07-28
 *   `_meta`, get the SDK's -32022 `Unsupported protocol version` (zig-sdk: -32601).
 * - On the legacy path the end of the input follows the front end's rule (docs/lifecycle.md#lifecycle-end-of-input): requests in
 *   flight are cancelled at once and the stop waits at most the grace. On the modern path they
 *   may finish within the grace and write their result.
 * - The server code must not write to stdout (console.log): stdout carries only JSON-RPC.
 */
export { serveDualEra } from './serveDualEra.js';
export { serveDualEraHttp } from './serveDualEraHttp.js';
export type { ServeDualEraHttpOptions } from './serveDualEraHttp.js';
export type { HttpServer, ServeHttpOptions } from '../node/serveHttp.js';
export type { BridgeProcessOptions } from '../node/bridgeOptions.js';
export type { DualEraHandle, ServeDualEraOptions } from './serveDualEra.js';
export type { SelectedEra } from './opening.js';
export { dualEra } from './dualEra.js';
export type { DualEraConfig, DualEraOutput } from './dualEra.js';
export { EMBEDDED_LIMITS } from './legacyPath.js';
export type { LegacyPathConfig } from './legacyPath.js';
