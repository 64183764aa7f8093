import { describe, expect, it } from 'vitest';
import { createLineTracker } from '../../src/cli/sharedTracker.js';

const line = (frame: object): Buffer => Buffer.from(JSON.stringify(frame), 'utf8');
const lost = (id: string | number): object => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: -32603,
    message: 'The upstream server process stopped. See the Output channel of the server.',
    data: { cause: 'upstream_exited' },
  },
});

describe('the line tracker of the shim', () => {
  it('reports the requests without an answer and the open requests of the bridge', () => {
    const tracker = createLineTracker();
    tracker.fromClient(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }), true);
    tracker.fromClient(line({ jsonrpc: '2.0', id: 'b', method: 'tools/call', params: {} }), true);
    tracker.fromClient(line({ jsonrpc: '2.0', id: 3, method: 'ping' }), true);
    tracker.toClient(line({ jsonrpc: '2.0', id: 3, result: {} }), true);
    tracker.toClient(line({ jsonrpc: '2.0', id: 7, method: 'elicitation/create', params: {} }), true);
    tracker.toClient(line({ jsonrpc: '2.0', id: 8, method: 'roots/list' }), true);
    tracker.fromClient(line({ jsonrpc: '2.0', id: 8, result: { roots: [] } }), true);
    expect(tracker.lossLines().map((text) => JSON.parse(text) as unknown)).toEqual([
      lost(1),
      lost('b'),
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 7, reason: 'the upstream server stopped' },
      },
    ]);
  });

  it('takes a line in pieces, and forgets a request that its client cancelled', () => {
    const tracker = createLineTracker();
    const request = line({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow' } });
    tracker.fromClient(request.subarray(0, 10), false);
    tracker.fromClient(request.subarray(10), true);
    tracker.fromClient(line({ jsonrpc: '2.0', id: 6, method: 'tools/call' }), true);
    tracker.fromClient(
      line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 6 } }),
      true,
    );
    expect(tracker.lossLines().map((text) => JSON.parse(text) as unknown)).toEqual([lost(5)]);
  });

  it('passes over lines that are not JSON objects', () => {
    const tracker = createLineTracker();
    tracker.fromClient(Buffer.from('not json'), true);
    tracker.fromClient(Buffer.from('[1,2]'), true);
    expect(tracker.lossLines()).toEqual([]);
  });
});
