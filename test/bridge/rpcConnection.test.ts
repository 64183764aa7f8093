import { NEVER, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createRpcConnection } from '../../src/bridge/rpcConnection.js';
import type { Logger } from '../../src/bridge/log.js';
import type { UpstreamConnection } from '../../src/bridge/upstream.js';
import type { Frame } from '../../src/protocol/jsonrpc.js';
import type { Inbound } from '../../src/protocol/parseLine.js';

const quiet: Logger = { enabled: () => false, log: () => undefined };

function connection(): { sent: Frame[]; request: UpstreamConnection['request'] } {
  const sent: Frame[] = [];
  const conn = createRpcConnection(
    {
      inbound$: new Subject<Inbound>(),
      send: (frame) => sent.push(frame),
      exit$: NEVER,
      close: () => undefined,
    },
    quiet,
  );
  return { sent, request: (method, params, options) => conn.request(method, params, options) };
}

describe('createRpcConnection: the request frame', () => {
  it('copies the params with _meta.progressToken set to the id, in the order of the members', () => {
    const { sent, request } = connection();
    const params = {
      name: 'echo',
      _meta: { traceparent: 't', progressToken: 'client' },
      arguments: { a: 1 },
    };
    request('tools/call', params).subscribe();
    request('tools/list', {}).subscribe();
    expect(JSON.stringify(sent[0])).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"traceparent":"t","progressToken":1},"arguments":{"a":1}}}',
    );
    expect(JSON.stringify(sent[1])).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"progressToken":2}}}',
    );
    // The caller's objects stay as they were.
    expect(params).toEqual({
      name: 'echo',
      _meta: { traceparent: 't', progressToken: 'client' },
      arguments: { a: 1 },
    });
  });

  it('keeps a member named __proto__ of the params and of _meta as an own member', () => {
    const { sent, request } = connection();
    const params = JSON.parse('{"__proto__":{"x":1},"_meta":{"__proto__":{"y":2}}}') as Record<string, never>;
    request('tools/call', params).subscribe();
    expect(JSON.stringify(sent[0])).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"__proto__":{"x":1},"_meta":{"__proto__":{"y":2},"progressToken":1}}}',
    );
    const sentParams = (sent[0] as { params: object }).params;
    expect(Object.getPrototypeOf(sentParams)).toBe(Object.prototype);
  });
});
