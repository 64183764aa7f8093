/**
 * mcp-bridge-sdk: serve MCP 2025-11-25 clients (VS Code) from MCP 2026-07-28 servers.
 *
 * `createBridge(config, deps)` turns decoded client lines into client frames; `deps.connect`
 * reaches the upstream (a child process through `spawnChildUpstream` + `createRpcConnection`,
 * or Streamable HTTP through `createHttpUpstream`). The operators are in
 * `mcp-bridge-sdk/operators`, the testing helpers in `mcp-bridge-sdk/testing`.
 */
export { createBridge } from './bridge/createBridge.js';
export { DEFAULT_LIMITS } from './bridge/config.js';
export type { BridgeConfig, BridgeDeps, BridgeLimits } from './bridge/config.js';
export type { Logger, LogLevel } from './bridge/log.js';
export { createRpcConnection } from './bridge/rpcConnection.js';
export type { LineTransport, RpcConnectionConfig } from './bridge/rpcConnection.js';
export type { ExchangeEvent, ExchangeOptions, UpstreamConnection } from './bridge/upstream.js';
export { spawnChildUpstream } from './edges/childProcess.js';
export type { ChildUpstreamConfig } from './edges/childProcess.js';
export { createHttpUpstream } from './edges/http/httpUpstream.js';
export type { HttpUpstreamConfig } from './edges/http/httpUpstream.js';
export { readChunks, writeLines } from './edges/stdio.js';
export { BridgeError, isBridgeError } from './errors.js';
export { ERROR_TABLE, bridgeError, bridgeErrorFrame } from './protocol/errors.js';
export type { Cause } from './protocol/errors.js';
export type {
  ErrorFrame,
  ErrorObject,
  Frame,
  JsonObject,
  JsonValue,
  NotificationFrame,
  RequestFrame,
  RequestId,
  ResponseFrame,
  ResultFrame,
} from './protocol/jsonrpc.js';
export type { Inbound } from './protocol/parseLine.js';
