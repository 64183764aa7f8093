import { describe, expect, it } from 'vitest';
import * as root from 'mcp-bridge-sdk';
import * as operators from 'mcp-bridge-sdk/operators';
import * as testing from 'mcp-bridge-sdk/testing';
import * as embed from 'mcp-bridge-sdk/embed';
import * as node from 'mcp-bridge-sdk/node';

// Every export is an API decision (docs/style.md#style-naming): this test pins the runtime names, imported
// through the package name as a user imports them (the package refers to itself through its
// `exports`; needs `npm run build`).
describe('public API', () => {
  it('the package name resolves to the built files', () => {
    for (const entry of ['', '/operators', '/testing', '/node', '/embed']) {
      expect(import.meta.resolve(`mcp-bridge-sdk${entry}`)).toMatch(/\/dist\/(src|operators)\/.*index\.js$/);
    }
  });

  it('the root entry exports the bridge, the profiles and the error model, and no Node edge', () => {
    expect(Object.keys(root).sort()).toEqual([
      'BridgeError',
      'DEFAULT_LIMITS',
      'ERROR_TABLE',
      'bridgeError',
      'bridgeErrorFrame',
      'createBridge',
      'createProfileBridge',
      'createRoutedBridge',
      'createRpcConnection',
      'genericProfile',
      'isBridgeError',
      'profileShapeResult',
      'shapeResult',
      'tookExchangeLog',
      'vscodeProfile',
    ]);
  });

  it('the node entry exports the Node edges, serveStdio and serveHttp', () => {
    expect(Object.keys(node).sort()).toEqual([
      'DEFAULT_WATCHDOG_MS',
      'ajvInputChecks',
      'createFlowControl',
      'createHttpUpstream',
      'createSharedHost',
      'createStderrLogger',
      'listenShared',
      'newSharedSecret',
      'readChunks',
      'serveHttp',
      'serveStdio',
      'spawnChildUpstream',
      'startUpstreamChild',
      'stopUpstreamChild',
      'writeLines',
    ]);
  });

  it('the operators entry exports one operator per file with its defaults', () => {
    expect(Object.keys(operators).sort()).toEqual([
      'DEFAULT_DECODE_LINES_CONFIG',
      'DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG',
      'DEFAULT_FORWARD_REQUEST_CONFIG',
      'DEFAULT_LIMIT_IN_FLIGHT_CONFIG',
      'DEFAULT_REOPEN_LISTEN_CONFIG',
      'decodeLines',
      'driveInputRounds',
      'encodeFrames',
      'forwardRequest',
      'limitInFlight',
      'reopenListen',
      'retryRefusedVersion',
      'withDeadline',
    ]);
  });

  it('the testing entry exports the frame and event builders, the scheduler and the fake upstream', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'bytes',
      'causeMessage',
      'clientAnswer',
      'createFakeUpstream',
      'createProtocolScheduler',
      'err',
      'errWith',
      'errorOutput',
      'inputRequired',
      'note',
      'notificationEvent',
      'progress',
      'req',
      'res',
      'responseEvent',
      'resultOutput',
      'sequence',
      'toClientOutput',
      'upstreamError',
      'upstreamFailure',
    ]);
  });

  it('the embed entry exports the dual-era servers', () => {
    expect(Object.keys(embed).sort()).toEqual(['EMBEDDED_LIMITS', 'dualEra', 'serveDualEra', 'serveDualEraHttp']);
  });
});
