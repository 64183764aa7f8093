/**
 * Plain stand-ins for the session table and the front session (docs/testing.md#testing-serve):
 * HTTP exchanges that record their answers, a bridge whose connections the test answers by hand,
 * and a virtual clock. No sockets, no real time.
 */
import { Observable, Subject, VirtualTimeScheduler } from 'rxjs';
import type { Frame, RequestId } from '../../../src/protocol/jsonrpc.js';
import type { Inbound } from '../../../src/protocol/parseLine.js';
import type { Exchange } from '../../../src/edges/httpFront/exchange.js';
import type { Logger } from '../../../src/ports/logger.js';
import type { RoutedFrame } from '../../../src/ports/routedFrame.js';

/** One HTTP request and what the front end answered on it. */
export interface FakeExchange extends Exchange {
  /** The status and body of a whole reply (`reply`). */
  readonly replies: { status: number; body: unknown; headers: Record<string, string> }[];
  /** The frames sent on its POST or event stream, in order. */
  readonly frames: Frame[];
  /** Whether its answer ended (a reply, the last answer of a POST stream, an ended stream). */
  readonly done: boolean;
  /** The headers of its stream, when it had one. */
  readonly streamHeaders: Record<string, string> | undefined;
  /** The client drops the connection. */
  drop(): void;
}

export function fakeExchange(sessionId?: string, protocolVersion?: string): FakeExchange {
  const listeners: (() => void)[] = [];
  let done = false;
  let streamHeaders: Record<string, string> | undefined;
  const close = (): void => {
    if (done) return;
    done = true;
    for (const listener of listeners.splice(0)) listener();
  };
  const x: FakeExchange = {
    sessionId,
    protocolVersion,
    replies: [],
    frames: [],
    get done() {
      return done;
    },
    get streamHeaders() {
      return streamHeaders;
    },
    reply(status, body, headers) {
      if (done) return;
      x.replies.push({ status, body, headers: { ...headers } });
      close();
    },
    postStream(expected, headers) {
      let remaining = expected;
      return {
        deliver(frame, final) {
          if (done) return;
          // As the real stream: its headers are read when its first frame goes out.
          streamHeaders ??= { ...headers() };
          x.frames.push(frame);
          if (final) remaining -= 1;
          if (remaining <= 0) close();
        },
        unanswered() {
          remaining -= 1;
          if (remaining <= 0) close();
        },
        end: close,
      };
    },
    eventStream(headers) {
      streamHeaders = { ...headers };
      return {
        send(frame) {
          if (!done) x.frames.push(frame);
        },
        end: close,
        get closed() {
          return done;
        },
      };
    },
    onClose(listener) {
      if (done) listener();
      else listeners.push(listener);
    },
    drop: close,
  };
  return x;
}

/** One subscription of the fake bridge: one session. */
export interface FakeConnection {
  /** The messages the session gave the bridge. */
  readonly seen: Inbound[];
  /** Whether the session's input ended. */
  readonly inputEnded: boolean;
  /** The bridge sends a frame, made by the client request `origin` when given. */
  emit(frame: Frame, origin?: RequestId): void;
  /** The bridge fails (the upstream was lost). */
  fail(): void;
}

/**
 * A bridge that answers each `initialize` at once (with an error when `failInitialize`), and
 * leaves every other request to the test.
 */
export function fakeBridge(options: { failInitialize?: boolean } = {}) {
  const connections: FakeConnection[] = [];
  const bridge = (input$: Observable<Inbound>): Observable<RoutedFrame> =>
    new Observable<RoutedFrame>((subscriber) => {
      const out = new Subject<RoutedFrame>();
      let inputEnded = false;
      const connection: FakeConnection = {
        seen: [],
        get inputEnded() {
          return inputEnded;
        },
        emit: (frame, origin) => out.next({ frame, origin }),
        fail: () => out.error(new Error('upstream lost')),
      };
      connections.push(connection);
      const outSub = out.subscribe(subscriber);
      const inSub = input$.subscribe({
        next: (m) => {
          connection.seen.push(m);
          if (m.kind !== 'frame' || !('method' in m.frame) || !('id' in m.frame)) return;
          if (m.frame.method !== 'initialize') return;
          out.next({
            frame:
              options.failInitialize === true
                ? { jsonrpc: '2.0', id: m.frame.id, error: { code: -32603, message: 'no upstream' } }
                : { jsonrpc: '2.0', id: m.frame.id, result: { protocolVersion: '2025-11-25' } },
            origin: m.frame.id,
          });
        },
        complete: () => {
          inputEnded = true;
        },
      });
      return () => {
        inSub.unsubscribe();
        outSub.unsubscribe();
      };
    });
  return { bridge, connections };
}

/** A logger that keeps its lines. */
export function fakeLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    log: (_scope: string, level: string, text: string) => {
      lines.push(`${level}: ${text}`);
    },
    enabled: () => true,
  };
}

/** A virtual clock: `advance(ms)` runs what is due within `ms` and moves `now()` on by `ms`. */
export function virtualClock() {
  const scheduler = new VirtualTimeScheduler();
  return {
    scheduler,
    advance(ms: number) {
      const target = scheduler.now() + ms;
      scheduler.schedule(() => undefined, ms);
      scheduler.maxFrames = target;
      scheduler.flush();
    },
  };
}

/** Inbound messages, as the body parser makes them. */
export const msg = (frame: Frame): Inbound => ({ kind: 'frame', frame });
export const initialize = (id: RequestId = 1): Inbound =>
  msg({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
export const call = (id: RequestId): Inbound =>
  msg({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {} } });
export const ping = (id: RequestId): Inbound => msg({ jsonrpc: '2.0', id, method: 'ping' });
export const cancelled = (requestId: RequestId): Inbound =>
  msg({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } });
