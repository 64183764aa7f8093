/**
 * The session table of the HTTP front end without sockets (docs/serve.md#serve-sessions,
 * docs/serve.md#serve-limits): requests keyed per session, the in-flight limit of all sessions and
 * its return to zero after every kind of end, `ping` never refused, the idle timer on a virtual
 * clock, the idle session used longest ago making room, a failed initialize, and `server/discover`
 * without a session.
 */
import { describe, expect, it } from 'vitest';
import { createSessionTable } from '../../../src/edges/httpFront/sessionTable.js';
import type { SessionTableSettings } from '../../../src/edges/httpFront/sessionTable.js';
import type { Inbound } from '../../../src/protocol/parseLine.js';
import {
  call,
  cancelled,
  fakeBridge,
  fakeExchange,
  fakeLogger,
  initialize,
  msg,
  ping,
  virtualClock,
} from './sessionFakes.js';
import { wireErrorFrame } from '../../helpers/wireErrors.js';

/** The refusals of the table, from the literal wire error table (docs/serve.md#serve-limits). */
const TOO_MANY = (id: number) => wireErrorFrame(id, 'too_many_requests');
const DUPLICATE = (id: number) => wireErrorFrame(id, 'duplicate_request_id');
const done = (id: number) => ({ jsonrpc: '2.0' as const, id, result: { content: [] } });

function setup(over: Partial<SessionTableSettings> = {}, bridgeOptions: { failInitialize?: boolean } = {}) {
  const clock = virtualClock();
  const fake = fakeBridge(bridgeOptions);
  const logger = fakeLogger();
  let count = 0;
  const table = createSessionTable({
    bridge: fake.bridge,
    logger,
    maxSessions: 4,
    maxPending: 1,
    sessionIdleMs: 60_000,
    maxBufferedFrames: 4,
    maxSessionBufferBytes: 1024 * 1024,
    keepAliveMs: 15_000,
    scheduler: clock.scheduler,
    newId: () => `session-${String((count += 1)).padStart(24, '0')}`,
    ...over,
  });
  /** Opens a session; its id. */
  const open = (): string => {
    const x = fakeExchange();
    table.post(x, [initialize()], {});
    const id = x.streamHeaders?.['mcp-session-id'];
    if (id === undefined) throw new Error('no session');
    return id;
  };
  const post = (session: string, ...messages: Inbound[]) => {
    const x = fakeExchange(session, '2025-11-25');
    table.post(x, messages, {});
    return x;
  };
  /** Whether the limit of all sessions (1) has its place free: a new call is not refused. */
  const placeFree = (session: string, id: number): boolean => {
    const x = post(session, call(id));
    const free = !x.frames.some((f) => JSON.stringify(f) === JSON.stringify(TOO_MANY(id)));
    return free;
  };
  return { clock, fake, logger, table, open, post, placeFree };
}

describe('requests keyed per session', () => {
  it('answers a request whose id is in flight in its session with duplicate_request_id, taking no place', () => {
    const t = setup({ maxPending: 2 });
    const a = t.open();
    const first = t.post(a, call(5));
    const second = t.post(a, call(5));
    expect(second.frames).toEqual([DUPLICATE(5)]);
    expect(second.done).toBe(true);
    // The second never reached the bridge, and the limit of 2 still has one place.
    expect(
      t.fake.connections[0]!.seen.filter((m) => JSON.stringify(m) === JSON.stringify(call(5))),
    ).toHaveLength(1);
    const third = t.post(a, call(6));
    expect(third.frames).toEqual([]);
    t.fake.connections[0]!.emit(done(5));
    expect(first.frames).toEqual([done(5)]);
  });

  it('answers the second of one id inside one batch with duplicate_request_id', () => {
    const t = setup({ maxPending: 4 });
    const a = t.open();
    const batch = t.post(a, call(7), call(7));
    expect(batch.frames).toEqual([DUPLICATE(7)]);
    expect(batch.done).toBe(false);
    t.fake.connections[0]!.emit(done(7));
    expect(batch.frames).toEqual([DUPLICATE(7), done(7)]);
    expect(batch.done).toBe(true);
  });

  it('takes an id again once its request was answered', () => {
    const t = setup();
    const a = t.open();
    t.post(a, call(8));
    t.fake.connections[0]!.emit(done(8));
    const again = t.post(a, call(8));
    t.fake.connections[0]!.emit(done(8));
    expect(again.frames).toEqual([done(8)]);
  });

  it('keeps the same id in two sessions apart', () => {
    const t = setup({ maxPending: 2 });
    const a = t.open();
    const b = t.open();
    const inA = t.post(a, call(9));
    const inB = t.post(b, call(9));
    t.fake.connections[1]!.emit(done(9));
    expect(inB.frames).toEqual([done(9)]);
    expect(inA.frames).toEqual([]);
  });
});

describe('the in-flight limit of all sessions', () => {
  it('refuses a request above the limit with too_many_requests, and it reaches no bridge', () => {
    const t = setup();
    const a = t.open();
    const b = t.open();
    t.post(a, call(1));
    const over = t.post(b, call(2));
    expect(over.frames).toEqual([TOO_MANY(2)]);
    expect(
      t.fake.connections[1]!.seen.map((m) => m.kind === 'frame' && 'method' in m.frame && m.frame.method),
    ).toEqual(['initialize']);
  });

  it('never refuses ping or a notification at the limit', () => {
    const t = setup();
    const a = t.open();
    const b = t.open();
    t.post(a, call(1));
    const probe = t.post(b, ping(3));
    const note = t.post(b, msg({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(probe.frames).toEqual([]);
    expect(note.replies.map((r) => r.status)).toEqual([202]);
    t.fake.connections[1]!.emit({ jsonrpc: '2.0', id: 3, result: {} });
    expect(probe.frames).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
  });
});

describe('every end of a request gives its place back', () => {
  it('its answer', () => {
    const t = setup();
    const a = t.open();
    t.post(a, call(1));
    expect(t.placeFree(a, 2)).toBe(false);
    t.fake.connections[0]!.emit(done(1));
    expect(t.placeFree(a, 3)).toBe(true);
  });

  it('its cancel by the client: the POST ends without an answer', () => {
    const t = setup();
    const a = t.open();
    const held = t.post(a, call(1));
    t.post(a, cancelled(1));
    expect(held.done).toBe(true);
    expect(held.frames).toEqual([]);
    expect(t.placeFree(a, 2)).toBe(true);
  });

  it('its dropped stream: the bridge gets the cancel', () => {
    const t = setup();
    const a = t.open();
    const held = t.post(a, call(1));
    held.drop();
    expect(t.fake.connections[0]!.seen.at(-1)).toEqual(
      msg({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 1, reason: 'the client closed the stream of the request' },
      }),
    );
    expect(t.placeFree(a, 2)).toBe(true);
  });

  it('a DELETE of its session', () => {
    const t = setup();
    const a = t.open();
    const b = t.open();
    const held = t.post(a, call(1));
    const del = fakeExchange(a, '2025-11-25');
    t.table.delete(del, {});
    expect(del.replies.map((r) => r.status)).toEqual([200]);
    expect(held.done).toBe(true);
    expect(t.fake.connections[0]!.inputEnded).toBe(true);
    expect(t.placeFree(b, 2)).toBe(true);
  });

  it('the expiry of its session (the idle session made room for another)', () => {
    const t = setup({ maxSessions: 1 });
    const a = t.open();
    const held = t.post(a, call(1));
    held.drop();
    const b = t.open();
    expect(t.post(a, call(2)).replies.map((r) => r.status)).toEqual([404]);
    expect(t.placeFree(b, 3)).toBe(true);
  });

  it('the loss of the upstream (the bridge fails)', () => {
    const t = setup();
    const a = t.open();
    const b = t.open();
    const held = t.post(a, call(1));
    t.fake.connections[0]!.fail();
    expect(held.done).toBe(true);
    expect(t.table.size).toBe(1);
    expect(t.placeFree(b, 2)).toBe(true);
  });
});

describe('session expiry (virtual clock)', () => {
  it('ends a session after sessionIdleMs without a request in flight and without a stream', () => {
    const t = setup();
    const a = t.open();
    t.clock.advance(59_999);
    expect(t.table.size).toBe(1);
    t.clock.advance(1);
    expect(t.table.size).toBe(0);
    expect(t.logger.lines).toContain('info: a session was idle for 60 s: it ends');
    expect(t.post(a, ping(2)).replies).toEqual([
      {
        status: 404,
        headers: {},
        body: {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32001,
            message: 'The session is not known: it ended or never existed.',
            data: { cause: 'session_not_found' },
          },
        },
      },
    ]);
  });

  it('counts the idle time from the end of its last request, and never while a stream is open', () => {
    const t = setup();
    const a = t.open();
    t.post(a, call(1));
    t.clock.advance(120_000);
    expect(t.table.size).toBe(1);
    t.fake.connections[0]!.emit(done(1));
    const listen = fakeExchange(a, '2025-11-25');
    t.table.get(listen, {});
    t.clock.advance(120_000);
    expect(t.table.size).toBe(1);
    listen.drop();
    t.clock.advance(59_999);
    expect(t.table.size).toBe(1);
    t.clock.advance(1);
    expect(t.table.size).toBe(0);
  });
});

describe('a full table', () => {
  it('ends the idle session used longest ago to make room, with a log line', () => {
    const t = setup({ maxSessions: 2 });
    const a = t.open();
    t.clock.advance(1_000);
    const b = t.open();
    t.clock.advance(1_000);
    t.post(a, ping(2));
    t.fake.connections[0]!.emit({ jsonrpc: '2.0', id: 2, result: {} });
    t.clock.advance(1_000);
    t.open();
    expect(t.table.size).toBe(2);
    expect(t.post(b, ping(3)).replies.map((r) => r.status)).toEqual([404]);
    expect(t.post(a, ping(4)).replies).toEqual([]);
    expect(t.logger.lines).toContain(
      'info: the table of 2 sessions is full: the session idle longest (2 s) ends to make room',
    );
  });

  it('refuses an initialize with 503 while every session has a stream open or a request in flight', () => {
    const t = setup({ maxSessions: 2, maxPending: 4 });
    const a = t.open();
    const b = t.open();
    t.table.get(fakeExchange(a, '2025-11-25'), {});
    t.post(b, call(1));
    const third = fakeExchange();
    t.table.post(third, [initialize(9)], {});
    expect(third.replies).toEqual([
      {
        status: 503,
        headers: {},
        body: {
          jsonrpc: '2.0',
          id: 9,
          error: {
            code: -32000,
            message: 'The server has as many sessions as its limit.',
            data: { cause: 'too_many_sessions' },
          },
        },
      },
    ]);
  });
});

describe('without a session', () => {
  it('ends a session whose initialize failed at once; its answer names no session', () => {
    const t = setup({}, { failInitialize: true });
    const x = fakeExchange();
    t.table.post(x, [initialize(1)], {});
    expect(x.frames).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'no upstream' } }]);
    expect(x.streamHeaders).toEqual({});
    expect(t.table.size).toBe(0);
  });

  it('answers server/discover with -32601 and its id, with status 200', () => {
    const t = setup();
    const x = fakeExchange();
    t.table.post(x, [msg({ jsonrpc: '2.0', id: 'probe', method: 'server/discover', params: {} })], {});
    expect(x.replies).toEqual([
      {
        status: 200,
        headers: {},
        body: {
          jsonrpc: '2.0',
          id: 'probe',
          error: {
            code: -32601,
            message: 'The server has no such method.',
            data: { cause: 'method_not_found' },
          },
        },
      },
    ]);
    expect(t.table.size).toBe(0);
  });
});
