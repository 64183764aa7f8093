import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as operators from '../../operators/index.js';
import * as testing from '../../src/testing/index.js';
import * as embed from '../../src/embed/index.js';
import * as node from '../../src/node/index.js';

// Every export is an API decision (style.md §3.2): this test pins the runtime names.
describe('public API', () => {
  it('the root entry exports the bridge, the profiles and the error model, and no Node edge', () => {
    expect(Object.keys(root).sort()).toEqual([
      'BridgeError',
      'DEFAULT_LIMITS',
      'ERROR_TABLE',
      'bridgeError',
      'bridgeErrorFrame',
      'createBridge',
      'createProfileBridge',
      'createRpcConnection',
      'genericProfile',
      'isBridgeError',
      'profileShapeResult',
      'vscodeProfile',
    ]);
  });

  it('the node entry exports the Node edges and serveStdio', () => {
    expect(Object.keys(node).sort()).toEqual([
      'DEFAULT_WATCHDOG_MS',
      'createFlowControl',
      'createHttpUpstream',
      'createStderrLogger',
      'readChunks',
      'serveStdio',
      'spawnChildUpstream',
      'writeLines',
    ]);
  });

  it('the operators entry exports one operator per file with its defaults', () => {
    expect(Object.keys(operators).sort()).toEqual([
      'DEFAULT_COLLECT_ANSWERS_CONFIG',
      'DEFAULT_DECODE_LINES_CONFIG',
      'DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG',
      'DEFAULT_LIMIT_IN_FLIGHT_CONFIG',
      'DEFAULT_REOPEN_LISTEN_CONFIG',
      'collectAnswers',
      'decodeLines',
      'driveInputRounds',
      'encodeFrames',
      'limitInFlight',
      'mergeInOrder',
      'reopenListen',
      'withDeadline',
    ]);
  });

  it('the testing entry exports the frame builders and the scheduler', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'causeMessage',
      'createProtocolScheduler',
      'err',
      'errWith',
      'inputRequired',
      'note',
      'progress',
      'req',
      'res',
    ]);
  });

  it('the embed entry exports the dual-era server', () => {
    expect(Object.keys(embed).sort()).toEqual(['EMBEDDED_LIMITS', 'dualEra', 'serveDualEra']);
  });
});
