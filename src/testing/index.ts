/**
 * Testing helpers for suites that state protocol rules as marble tests
 * (`mcp-bridge-sdk/testing`): the frame and event builders of the marble alphabet, the scheduler,
 * and `createFakeUpstream`, a scripted in-memory 2026-07-28 server for `createBridge`.
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
export { createFakeUpstream, upstreamError, upstreamFailure } from './fakeUpstream.js';
export type {
  FakeHandler,
  FakeListen,
  FakeReply,
  FakeRequest,
  FakeUpstream,
  FakeUpstreamError,
  FakeUpstreamScript,
} from './fakeUpstream.js';
