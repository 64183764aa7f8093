import { NEVER, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createRpcConnection } from '../../src/bridge/rpcConnection.js';
import { withVersionRetry } from '../../src/bridge/versionRetry.js';
import { frameLine } from '../../src/codec/requestText.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import type { Logger } from '../../src/ports/logger.js';
import type { UpstreamConnection } from '../../src/ports/upstream.js';
import type { Frame, JsonObject } from '../../src/protocol/jsonrpc.js';
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

const refusal = (id: number, supported: string[]): Inbound => ({
  kind: 'frame',
  frame: {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported, requested: '2026-07-28' },
    },
  },
});
const answer = (id: number): Inbound => ({
  kind: 'frame',
  frame: { jsonrpc: '2.0', id, result: { ok: id } },
});

function wired(retry: boolean) {
  const inbound$ = new Subject<Inbound>();
  const sent: Frame[] = [];
  const lines: string[] = [];
  const logger: Logger = {
    enabled: () => false,
    log: (scope, level, text) => lines.push(`${scope}: ${level}: ${text}`),
  };
  const raw = createRpcConnection(
    { inbound$, send: (frame) => sent.push(frame), exit$: NEVER, close: () => undefined },
    quiet,
  );
  const conn = retry ? withVersionRetry(raw, logger) : raw;
  const events: ExchangeEvent[] = [];
  let completed = false;
  const subscription = conn
    .request('tools/call', { name: 'echo' })
    .subscribe({ next: (event) => events.push(event), complete: () => (completed = true) });
  return { inbound$, sent, lines, events, subscription, done: () => completed };
}

describe('createRpcConnection with withVersionRetry (versionRetry.ts)', () => {
  it('sends a request refused with -32022 that offers 2026-07-28 once more under a new id, with one warning', () => {
    const { inbound$, sent, lines, events, done } = wired(true);
    inbound$.next(refusal(1, ['2025-11-25', '2026-07-28']));
    expect(events).toEqual([]);
    expect(done()).toBe(false);
    expect(JSON.stringify(sent[1])).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":2}}}',
    );
    expect(lines).toEqual([
      'bridge: warn: tools/call: the upstream server refused the protocol version 2026-07-28 (-32022) but lists it as supported; the bridge sends the request once more',
    ]);
    inbound$.next(answer(2));
    expect(events).toEqual([{ type: 'response', frame: { jsonrpc: '2.0', id: 2, result: { ok: 2 } } }]);
    expect(done()).toBe(true);
  });

  it('a second refusal of the same request reaches the caller, and a refusal without 2026-07-28 is never retried', () => {
    const twice = wired(true);
    twice.inbound$.next(refusal(1, ['2026-07-28']));
    twice.inbound$.next(refusal(2, ['2026-07-28']));
    expect(twice.sent).toHaveLength(2);
    expect(twice.events).toEqual([
      {
        type: 'response',
        frame: {
          jsonrpc: '2.0',
          id: 2,
          error: {
            code: -32022,
            message: 'Unsupported protocol version',
            data: { supported: ['2026-07-28'], requested: '2026-07-28' },
          },
        },
      },
    ]);
    const other = wired(true);
    other.inbound$.next(refusal(1, ['2099-01-01']));
    expect(other.sent).toHaveLength(1);
    expect(other.events).toHaveLength(1);
    expect(other.lines).toEqual([]);
  });

  it('after a retry, unsubscribing cancels the new id', () => {
    const { inbound$, sent, subscription } = wired(true);
    inbound$.next(refusal(1, ['2026-07-28']));
    subscription.unsubscribe();
    expect(sent[2]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 2, reason: 'the client canceled the request' },
    });
  });

  it('without withVersionRetry the connection hands the refusal on unchanged', () => {
    const { inbound$, sent, events, done } = wired(false);
    inbound$.next(refusal(1, ['2026-07-28']));
    expect(sent).toHaveLength(1);
    expect(events).toHaveLength(1);
    expect(done()).toBe(true);
  });
});

describe('createRpcConnection: the exchange of a request, fresh params and lines', () => {
  function plain(asLines: boolean) {
    const inbound$ = new Subject<Inbound>();
    const sent: Frame[] = [];
    const lines: string[] = [];
    const conn = createRpcConnection(
      {
        inbound$,
        // A transport of text makes its lines as the child process transport does.
        send: (frame) => (asLines ? lines.push(frameLine(frame)) : sent.push(frame)),
        exit$: NEVER,
        close: () => undefined,
      },
      quiet,
    );
    return { inbound$, sent, lines, conn };
  }
  const sinkLog = () => {
    const log: string[] = [];
    return {
      log,
      sink: {
        next: (event: ExchangeEvent) => log.push(`next ${event.type} ${JSON.stringify(event.frame)}`),
        error: (error: unknown) => log.push(`error ${(error as { code?: string }).code}`),
        complete: () => log.push('complete'),
      },
    };
  };

  it('a transport of text gets each request as the line of JSON text frameLine makes', () => {
    const { lines, sent, conn } = plain(true);
    const info = Object.freeze({ name: 'c', version: '1' });
    conn.request('tools/call', { name: 'echo', _meta: { 'io.x/clientInfo': info } }).subscribe();
    conn.request('tools/call', { name: 'echo', _meta: { 'io.x/clientInfo': info } }).subscribe();
    expect(sent).toEqual([]);
    expect(lines).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.x/clientInfo":{"name":"c","version":"1"},"progressToken":1}}}\n',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","_meta":{"io.x/clientInfo":{"name":"c","version":"1"},"progressToken":2}}}\n',
    ]);
  });

  it('request delivers the response and the completion to the observer, then nothing after an unsubscribe', () => {
    const { inbound$, sent, conn } = plain(false);
    const first = sinkLog();
    conn.request('tools/call', { name: 'a' }, {}).subscribe(first.sink);
    inbound$.next(answer(1));
    expect(first.log).toEqual(['next response {"jsonrpc":"2.0","id":1,"result":{"ok":1}}', 'complete']);

    const second = sinkLog();
    const handle = conn
      .request('tools/call', { name: 'b' }, { cancelReason: () => 'because' })
      .subscribe(second.sink);
    handle.unsubscribe();
    handle.unsubscribe();
    inbound$.next(answer(2));
    expect(second.log).toEqual([]);
    expect(sent[2]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 2, reason: 'because' },
    });
    expect(sent).toHaveLength(3);
  });

  it('an observer that unsubscribes inside next on the response gets no completion', () => {
    const { inbound$, conn } = plain(false);
    const log: string[] = [];
    const handle: { unsubscribe(): void } | undefined = conn.request('tools/call', {}, {}).subscribe({
      next: () => {
        log.push('next');
        handle?.unsubscribe();
      },
      error: () => log.push('error'),
      complete: () => log.push('complete'),
    });
    inbound$.next(answer(1));
    expect(log).toEqual(['next']);
  });

  it('a log message tagged with an exchange goes to its logs, not to its events; without logs it is an event', () => {
    const { inbound$, conn } = plain(false);
    const tagged = (id: number): Inbound => ({
      kind: 'frame',
      frame: {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: `for ${id}`, _meta: { 'io.modelcontextprotocol/subscriptionId': id } },
      },
    });
    const logs: unknown[] = [];
    const withLogs = sinkLog();
    conn
      .request('subscriptions/listen', {}, { logs: (frame) => logs.push(frame.params) })
      .subscribe(withLogs.sink);
    const without = sinkLog();
    conn.request('subscriptions/listen', {}, {}).subscribe(without.sink);
    inbound$.next(tagged(1));
    inbound$.next(tagged(2));
    expect(logs).toEqual([
      { level: 'info', data: 'for 1', _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } },
    ]);
    expect(withLogs.log).toEqual([]);
    expect(without.log).toEqual([
      'next notification {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"for 2","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}',
    ]);
  });

  it('the progress token goes into copies: the params and meta of the caller stay as they were, also for a request sent once more', () => {
    const { inbound$, sent, conn: raw } = plain(false);
    const conn = withVersionRetry(raw, quiet);
    const meta: JsonObject = Object.freeze({ traceparent: 't' });
    const params: JsonObject = Object.freeze({ name: 'echo', _meta: meta });
    conn.request('tools/call', params).subscribe();
    expect((sent[0] as { params: unknown }).params).not.toBe(params);
    expect(params).toEqual({ name: 'echo', _meta: { traceparent: 't' } });
    inbound$.next(refusal(1, ['2026-07-28']));
    const resent = (sent[1] as unknown as { params: JsonObject }).params;
    expect(resent).not.toBe(params);
    expect(JSON.stringify(sent[1])).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","_meta":{"traceparent":"t","progressToken":2}}}',
    );
    expect(JSON.stringify(sent[0])).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"traceparent":"t","progressToken":1}}}',
    );
  });

  it('a request after the connection is gone fails at once', () => {
    const { conn } = plain(false);
    conn.close();
    const { log, sink } = sinkLog();
    conn.request('tools/list', {}, {}).subscribe(sink);
    expect(log).toEqual(['error closed']);
  });
});
