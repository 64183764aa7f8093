/**
 * The public operators of mcp-bridge-sdk (`mcp-bridge-sdk/operators`). Each file holds one
 * operator, its `…Config` and its defaults; the rules of each are in its doc comment and in the
 * marble tests of the same name under `marbles/`. No Node I/O: these run in any runtime. Nothing
 * heavy is loaded here: `driveInputRounds` gets its schema checks from its caller
 * (`ajvInputChecks` of `mcp-bridge-sdk/node`, or checks of one's own).
 */
export { decodeLines, DEFAULT_DECODE_LINES_CONFIG } from './decodeLines.js';
export type { DecodeLinesConfig } from './decodeLines.js';
export { DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG, driveInputRounds } from './driveInputRounds.js';
export type {
  ClientAnswer,
  ClientReply,
  ClientRevision,
  DriveInputRoundsConfig,
  InputLogEntry,
  InputRoundsDeps,
  InputSchemaChecks,
  RetryExtras,
  RoundOutput,
  RoundsConnection,
  RoundsSettings,
  SpecDefinition,
} from './driveInputRounds.js';
export { encodeFrames } from './encodeFrames.js';
export type { EncodeFramesConfig } from './encodeFrames.js';
export { DEFAULT_FORWARD_REQUEST_CONFIG, forwardRequest } from './forwardRequest.js';
export type { ForwardAbort, ForwardRequestConfig, ForwardRequestDeps } from './forwardRequest.js';
export { DEFAULT_LIMIT_IN_FLIGHT_CONFIG, limitInFlight } from './limitInFlight.js';
export type { LimitInFlightConfig } from './limitInFlight.js';
export { DEFAULT_REOPEN_LISTEN_CONFIG, reopenListen } from './reopenListen.js';
export type { ListenEnd, ListenNext, ReopenListenConfig } from './reopenListen.js';
// The events of an upstream exchange, which driveInputRounds, forwardRequest, reopenListen and retryRefusedVersion read.
export type { ExchangeEvent } from '../src/ports/upstream.js';
// Why a running request stops: driveInputRounds' abort$ and forwardRequest's ForwardAbort.
export type { RequestStop } from '../src/protocol/cancelReasons.js';
export { retryRefusedVersion } from './retryRefusedVersion.js';
export type { RetryRefusedVersionConfig } from './retryRefusedVersion.js';
export { withDeadline } from './withDeadline.js';
export type { WithDeadlineConfig } from './withDeadline.js';
