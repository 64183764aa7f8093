/**
 * The bytes of the GET buffer of a session (docs/serve.md#serve-bounds): the frames waiting while
 * no GET stream is open count in the session's unread output, the oldest dropped leave it, and a
 * new GET stream takes them all.
 */
import { describe, expect, it } from 'vitest';
import { createListenStream } from '../../../src/edges/httpFront/listenStream.js';
import type { EventStream } from '../../../src/edges/httpFront/streams.js';
import { fakeLogger } from './sessionFakes.js';

/** A notification of exactly 62 bytes as JSON. */
const frame = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/x', params: { n: 10 + n } });

describe('the GET buffer of a session', () => {
  it('counts the bytes of the frames it holds, drops the oldest beyond its count, and empties into a new stream', () => {
    const listen = createListenStream(2, fakeLogger());
    expect(JSON.stringify(frame(1)).length).toBe(62);
    listen.send(frame(1));
    listen.send(frame(2));
    expect(listen.waitingBytes).toBe(124);
    listen.send(frame(3));
    expect(listen.waitingBytes).toBe(124);
    const sent: unknown[] = [];
    const stream: EventStream = { send: (f) => sent.push(f), end: () => undefined, closed: false };
    listen.attach(stream);
    expect(listen.waitingBytes).toBe(0);
    expect(sent).toEqual([frame(2), frame(3)]);
  });
});
