/**
 * The Node edges of mcp-bridge-sdk (`mcp-bridge-sdk/node`): stdio, the child-process upstream,
 * the Streamable HTTP upstream, flow control (back-pressure), `serveStdio`, which gives a
 * product the whole executable's behaviour, and `serveHttp`, the HTTP front end of many sessions. Node only; the runtime-neutral parts are in
 * `mcp-bridge-sdk`.
 */
export { serveStdio, DEFAULT_WATCHDOG_MS } from './serveStdio.js';
export type { BridgeProcessOptions, ServeStdioOptions, StdioUpstream } from './serveStdio.js';
export { serveHttp } from './serveHttp.js';
export type { HttpServer, ServeHttpOptions } from './serveHttp.js';
export { spawnChildUpstream } from '../edges/childProcess.js';
export type { ChildUpstreamConfig } from '../edges/childProcess.js';
export { startUpstreamChild, stopUpstreamChild } from '../edges/childStart.js';
export type { ChildExit, ChildStartOutcome, UpstreamChild } from '../edges/childStart.js';
export { createHttpUpstream } from '../edges/http/httpUpstream.js';
export type {
  HttpUpstreamConfig,
  HttpUpstreamConnection,
  ProxyEnv,
  StaticHeader,
} from '../edges/http/httpUpstream.js';
export { createFlowControl } from '../edges/flowControl.js';
export type { FlowControl, Pausable } from '../edges/flowControl.js';
export { readChunks, writeLines } from '../edges/stdio.js';
export type { WriteLinesOptions } from '../edges/stdio.js';
export { createStderrLogger } from './log.js';
export { ajvInputChecks } from './inputChecks.js';
// The shared bridge as library pieces (docs/shared.md#shared-library).
export { createSharedHost } from './sharedHost.js';
export type { SharedHost, SharedHostOptions, SharedStatus } from './sharedHost.js';
export type { SharedPlan, SharedSignIn } from './sharedPlan.js';
export type { SharedSessionSettings } from './sharedSession.js';
export { listenShared } from '../edges/sharedSocket/listen.js';
export { newSharedSecret } from '../edges/sharedSocket/secret.js';
export type { ListenOutcome } from '../edges/sharedSocket/listen.js';
export type { SocketPlaceInputs, SocketPlaceRefusal } from '../edges/sharedSocket/socketPlace.js';
export type { SharedHello } from '../edges/sharedSocket/records.js';
