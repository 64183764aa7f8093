/**
 * The event streams of the HTTP front end (docs/serve.md#serve-limits): a client that stops
 * reading loses its stream once more than the limit waits unwritten, as a dropped stream does;
 * a stream that the client reads keeps going.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_UNWRITTEN_BYTES, openEventStream } from '../../../src/edges/httpFront/streams.js';
import { note } from '../../../src/testing/frames.js';

/** A response whose client reads nothing (`reading` false) or everything at once. */
function fakeResponse(reading: boolean) {
  const res = new EventEmitter() as EventEmitter & {
    writableLength: number;
    destroyed: boolean;
    written: string[];
  };
  Object.assign(res, {
    writableLength: 0,
    destroyed: false,
    written: [],
    writeHead: () => res,
    flushHeaders: () => undefined,
    write: (text: string) => {
      res.written.push(text);
      if (!reading) res.writableLength += Buffer.byteLength(text);
      return reading;
    },
    end: () => undefined,
    destroy: () => {
      res.destroyed = true;
      res.emit('close');
    },
  });
  return res;
}

const big = note('notifications/message', { level: 'info', data: 'x'.repeat(1024) });
/** The bytes of one event of `big` on the wire (the SSE format). */
const EVENT_BYTES = Buffer.byteLength(`event: message\ndata: ${JSON.stringify(big)}\n\n`);
/** A limit between 9 and 10 events. */
const LIMIT = Math.floor(EVENT_BYTES * 9.5);

describe('event streams of the front end', () => {
  it('closes the stream of a client that reads nothing once more than the limit waits', () => {
    const res = fakeResponse(false);
    const stream = openEventStream(res as unknown as ServerResponse, {}, 60_000, LIMIT);
    for (let i = 0; i < 9; i += 1) stream.send(big);
    expect(res.destroyed).toBe(false);
    stream.send(big);
    expect(res.destroyed).toBe(true);
    expect(stream.closed).toBe(true);
    const before = res.written.length;
    stream.send(big);
    expect(res.written.length).toBe(before);
  });

  it('keeps the stream of a client that reads', () => {
    const res = fakeResponse(true);
    const stream = openEventStream(res as unknown as ServerResponse, {}, 60_000, LIMIT);
    for (let i = 0; i < 100; i += 1) stream.send(big);
    expect(res.destroyed).toBe(false);
    expect(res.written).toHaveLength(100);
  });

  it('holds at most 16 MiB unwritten by default', () => {
    expect(MAX_UNWRITTEN_BYTES).toBe(16 * 1024 * 1024);
  });
});
