/**
 * One request fails alone: a codec step that throws while the bridge shapes one
 * result (injected through `BridgeDeps.shapeResult`) gives that request -32603 with cause
 * `internal` and one log line with its id and method; the requests around it still complete, and
 * a failure on a client notification is logged and dropped.
 */
import { Subject, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import { createBridge } from '../../src/bridge/createBridge.js';
import type { Logger } from '../../src/ports/logger.js';
import type { UpstreamConnection } from '../../src/ports/upstream.js';
import { shapeResult } from '../../src/codec/results.js';
import type { Frame, JsonObject } from '../../src/protocol/jsonrpc.js';
import type { Inbound } from '../../src/protocol/parseLine.js';
import { createFakeUpstream } from '../../src/testing/fakeUpstream.js';

const frame = (value: object): Inbound => ({ kind: 'frame', frame: value as Frame });
const INITIALIZE = frame({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});
/** The -32603 `internal` answer of a request that failed inside the bridge. */
const internalError = (id: number | string): Frame => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: -32603,
    message: 'The bridge failed inside. See the Output channel of the server.',
    data: { cause: 'internal' },
  },
});
const call = (id: number, text: string): Inbound =>
  frame({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });

/** An upstream that answers discover and echoes each tool call at once; a call of `throwOn` throws. */
function fakeUpstream(throwOn?: string): UpstreamConnection {
  const echo = (params: JsonObject) => {
    const args = (params['arguments'] ?? {}) as JsonObject;
    if (throwOn !== undefined && args['text'] === throwOn) throw new RangeError('a bug in the upstream edge');
    return { content: [{ type: 'text', text: typeof args['text'] === 'string' ? args['text'] : '' }] };
  };
  return createFakeUpstream({ tools: { echo } }).connection;
}

function run(lines$: Subject<Inbound>, throwOn: string, upstreamThrowsOn?: string, loggerThrows = false) {
  const out: Frame[] = [];
  const log: string[] = [];
  const logger: Logger = {
    log: (scope, level, text) => {
      if (loggerThrows && level === 'err') throw new Error('the log is gone');
      log.push(`${scope}: ${level}: ${text}`);
    },
    enabled: () => false,
  };
  let errored: unknown;
  let completed = false;
  const bridge = createBridge(
    { version: '9.9.9', fallbackName: 'fake', limits: DEFAULT_LIMITS },
    {
      connect: () => of(fakeUpstream(upstreamThrowsOn)),
      logger,
      // The injected fault: the codec step throws on one result, as a bug in it would.
      shapeResult: (method, result, options) => {
        const content = result['content'] as { text?: string }[] | undefined;
        if (content?.[0]?.text === throwOn) throw new TypeError('a bug in the codec');
        return shapeResult(method, result, options);
      },
    },
  );
  bridge(lines$).subscribe({
    next: (value) => out.push(value),
    error: (error: unknown) => (errored = error),
    complete: () => (completed = true),
  });
  return { out, log, state: () => ({ errored, completed }) };
}

describe('one request fails alone', () => {
  it('a throwing codec step fails its request with -32603 internal and a log line, and the requests around it complete', () => {
    const lines$ = new Subject<Inbound>();
    const { out, log, state } = run(lines$, 'boom');
    lines$.next(INITIALIZE);
    lines$.next(call(2, 'before'));
    lines$.next(call(3, 'boom'));
    lines$.next(call(4, 'after'));
    lines$.next(frame({ jsonrpc: '2.0', id: 5, method: 'ping' }));
    expect(out.slice(1)).toEqual([
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'before' }] } },
      internalError(3),
      { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'after' }] } },
      { jsonrpc: '2.0', id: 5, result: {} },
    ]);
    expect(log).toContain(
      'bridge: err: request 3 (tools/call) failed inside the bridge (TypeError); the connection goes on',
    );
    expect(log.join('\n')).not.toContain('a bug in the codec');
    expect(state()).toEqual({ errored: undefined, completed: false });
    lines$.complete();
  });

  it('a logger that throws while the failure is logged still leaves the request its -32603 reply', () => {
    const lines$ = new Subject<Inbound>();
    const { out, state } = run(lines$, 'boom', undefined, true);
    lines$.next(INITIALIZE);
    lines$.next(call(3, 'boom'));
    lines$.next(call(4, 'after'));
    expect(out.slice(1)).toEqual([
      internalError(3),
      { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'after' }] } },
    ]);
    expect(state()).toEqual({ errored: undefined, completed: false });
    lines$.complete();
  });

  it('an upstream exchange that throws as it starts fails its request with an error frame, and the requests around it complete', () => {
    const lines$ = new Subject<Inbound>();
    const { out, state } = run(lines$, 'boom', 'edge');
    lines$.next(INITIALIZE);
    lines$.next(call(2, 'before'));
    lines$.next(call(3, 'edge'));
    lines$.next(call(4, 'after'));
    expect(out.slice(1)).toEqual([
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'before' }] } },
      internalError(3),
      { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'after' }] } },
    ]);
    expect(state()).toEqual({ errored: undefined, completed: false });
    lines$.complete();
  });

  it('a request whose upstream params cannot be built fails with an error frame, and the next request is answered', () => {
    const lines$ = new Subject<Inbound>();
    const { out, state } = run(lines$, 'boom');
    lines$.next(INITIALIZE);
    // A `_meta` whose pass-through key throws when read: building the upstream `_meta` fails.
    const meta = {} as Record<string, unknown>;
    Object.defineProperty(meta, 'vscode.hostile', {
      enumerable: true,
      get: () => {
        throw new RangeError('hostile');
      },
    });
    lines$.next(
      frame({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: {}, _meta: meta },
      }),
    );
    lines$.next(call(3, 'after'));
    expect(out.slice(1)).toEqual([
      internalError(2),
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'after' }] } },
    ]);
    expect(state()).toEqual({ errored: undefined, completed: false });
    lines$.complete();
  });

  it('a failure on a client notification is logged and dropped, and the next request is answered', () => {
    const lines$ = new Subject<Inbound>();
    const { out, log, state } = run(lines$, 'boom');
    // A notification whose params throw when read: the dispatcher fails on it.
    const hostile = { jsonrpc: '2.0', method: 'notifications/cancelled' } as Record<string, unknown>;
    Object.defineProperty(hostile, 'params', {
      enumerable: true,
      get: () => {
        throw new RangeError('hostile');
      },
    });
    lines$.next(frame(hostile));
    lines$.next(frame({ jsonrpc: '2.0', id: 9, method: 'ping' }));
    expect(out).toEqual([{ jsonrpc: '2.0', id: 9, result: {} }]);
    expect(log).toEqual([
      'bridge: err: dropped the notification notifications/cancelled of the client: the bridge failed on it (RangeError)',
    ]);
    expect(state()).toEqual({ errored: undefined, completed: false });
  });
});
