/**
 * Testing helpers for suites that state protocol rules as marble tests
 * (`mcp-bridge-sdk/testing`): the frame and event builders of the marble alphabet and the scheduler.
 */
export { causeMessage, err, errWith, inputRequired, note, progress, req, res } from './frames.js';
export {
  bytes,
  clientAnswer,
  errorOutput,
  notificationEvent,
  responseEvent,
  resultOutput,
  sequence,
  toClientOutput,
} from './events.js';
export { createProtocolScheduler } from './scheduler.js';
export type { DeepEqualAssertion } from './scheduler.js';
