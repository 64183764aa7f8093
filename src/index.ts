/**
 * mcp-bridge-sdk: serve MCP 2025-11-25 clients (VS Code) from MCP 2026-07-28 servers.
 *
 * `createBridge(config, deps)` turns decoded client lines into client frames; `deps.connect`
 * reaches the upstream. This entry is runtime-neutral (no Node built-in module is reachable from
 * it): the Node edges (stdio, child process, Streamable HTTP, flow control, `serveStdio`) are in
 * `mcp-bridge-sdk/node`, the operators in `mcp-bridge-sdk/operators`, the testing helpers in
 * `mcp-bridge-sdk/testing`, the embedded mode in `mcp-bridge-sdk/embed`.
 */
export { createBridge, createRoutedBridge } from './bridge/createBridge.js';
export type { RoutedFrame } from './ports/routedFrame.js';
export { createProfileBridge, profileShapeResult } from './profiles/bridge.js';
export type { ProfileBridgeConfig } from './profiles/bridge.js';
export { genericProfile } from './profiles/generic.js';
export { vscodeProfile } from './profiles/vscode.js';
export type { Profile, ProfileQuirks, SignInIdentity } from './profiles/profile.js';
export type { MetaPassthrough } from './protocol/metaPassthrough.js';
export { DEFAULT_LIMITS } from './bridge/config.js';
export type { BridgeConfig, BridgeDeps, BridgeLimits } from './bridge/config.js';
// BridgeLimits holds the limits of forwardRequest (mcp-bridge-sdk/operators), the operator of every forwarded request.
export type { ForwardRequestConfig } from '../operators/forwardRequest.js';
export type { ConsentPort, ConsentRelay, UpstreamAuth } from './ports/signIn.js';
export type { Logger, LogLevel } from './ports/logger.js';
export type {
  EndHandle,
  RequestHandle,
  RequestInfo,
  RoundHandle,
  RoundOutcome,
  SignInOutcome,
  SignInStepHandle,
  SignInStepInfo,
  SignInTelemetry,
  Telemetry,
  TraceContext,
} from './ports/telemetry.js';
export { createRpcConnection } from './bridge/rpcConnection.js';
export type { RpcConnectionConfig } from './bridge/rpcConnection.js';
export type { LineTransport } from './ports/lineTransport.js';
export type { ExchangeEvent, ExchangeOptions, UpstreamConnection } from './ports/upstream.js';
export { tookExchangeLog } from './ports/upstream.js';
export { BridgeError, isBridgeError } from './protocol/bridgeError.js';
export type { BridgeErrorData, BridgeErrorInit } from './protocol/bridgeError.js';
export { shapeResult } from './codec/results.js';
export type { InputSchemaChecks, SpecDefinition } from './codec/input/checks.js';
export type { ShapeOptions } from './codec/results.js';
export type { ToolQuirks } from './codec/toolResults.js';
export { ERROR_TABLE, bridgeError, bridgeErrorFrame } from './protocol/errors.js';
export type { Cause } from './protocol/errors.js';
export type {
  ErrorFrame,
  ErrorObject,
  Frame,
  JsonObject,
  JsonPrimitive,
  JsonValue,
  NotificationFrame,
  RequestFrame,
  RequestId,
  ResponseFrame,
  ResultFrame,
} from './protocol/jsonrpc.js';
export type { BadLineCause, Inbound } from './protocol/parseLine.js';
