import { PassThrough, Writable } from 'node:stream';
import { Observable, count, lastValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { writeLines } from '../../src/edges/stdio.js';

type Line = string | readonly (string | Uint8Array)[];
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('writeLines with lines of pieces', () => {
  it('writes the pieces in order with the other lines, and hands the bytes over without a copy', async () => {
    const chunks: Buffer[] = [];
    const stream = new Writable({
      writev(entries, callback) {
        for (const entry of entries) chunks.push(entry.chunk as Buffer);
        callback();
      },
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
    });
    const raw = bytes('xx"raw":[1,2]yy').subarray(2, 13);
    const lines$ = new Observable<Line>((subscriber) => {
      subscriber.next('{"first":1}\n');
      // The rest of the turn: a string, a line of pieces, a string.
      subscriber.next('{"a":1}\n');
      subscriber.next(['{"id":2,"result":{', raw, ',"b":"c"}}\n']);
      subscriber.next('{"z":0}\n');
      subscriber.complete();
    });
    const written = await lastValueFrom(lines$.pipe(writeLines(stream), count()));
    expect(written).toBe(4);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(
      '{"first":1}\n{"a":1}\n{"id":2,"result":{"raw":[1,2],"b":"c"}}\n{"z":0}\n',
    );
    // The raw piece reached the stream as a view of the same memory.
    const rawChunk = chunks.find((chunk) => chunk.toString('utf8') === '"raw":[1,2]');
    expect(rawChunk?.buffer).toBe(raw.buffer);
    expect(rawChunk?.byteOffset).toBe(2);
  });

  it('lines of pieces wait for drain like strings and all arrive in order', async () => {
    const stream = new PassThrough({ highWaterMark: 8 });
    const received: Buffer[] = [];
    const lines$ = new Observable<Line>((subscriber) => {
      for (let i = 0; i < 2_000; i += 1) {
        subscriber.next(i % 2 === 0 ? `${i}\n` : [`${i}:`, bytes(`raw${i}`), '\n']);
      }
      subscriber.complete();
    });
    const done = lastValueFrom(lines$.pipe(writeLines(stream), count()));
    // Nobody reads yet: the first writes fill the buffer, and the rest wait for drain.
    await waitFor(() => stream.writableNeedDrain, { what: 'a full buffer' });
    stream.on('data', (chunk: Buffer) => received.push(chunk));
    await expect(done).resolves.toBe(2_000);
    const lines = Buffer.concat(received).toString('utf8').split('\n').slice(0, -1);
    expect(lines).toHaveLength(2_000);
    expect(lines.slice(0, 4)).toEqual(['0', '1:raw1', '2', '3:raw3']);
    expect(lines[1_999]).toBe('1999:raw1999');
  });
});
