import { PassThrough, Writable } from 'node:stream';
import { Observable, lastValueFrom, range, map, count } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { writeLines } from '../../src/edges/stdio.js';

/** A writable that records each write and says "full" on the first one. */
function recorder(): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString('utf8'));
      setImmediate(callback);
    },
  });
  return { stream, writes };
}

describe('writeLines', () => {
  it('writes the first line of a turn at once and the rest of the turn in one write, in order', async () => {
    const { stream, writes } = recorder();
    const written = await lastValueFrom(
      range(0, 3).pipe(
        map((i) => `${i}\n`),
        writeLines(stream),
        count(),
      ),
    );
    expect(written).toBe(3);
    expect(writes).toEqual(['0\n', '1\n2\n']);
  });

  it('lines made in separate microtasks of one turn share one write (issue 13)', async () => {
    // A stream that is never full: only the batching decides the writes.
    const writes: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        writes.push(chunk.toString('utf8'));
        callback();
      },
    });
    const lines$ = new Observable<string>((subscriber) => {
      subscriber.next('0\n');
      queueMicrotask(() => {
        subscriber.next('1\n');
        queueMicrotask(() => {
          subscriber.next('2\n');
          subscriber.complete();
        });
      });
    });
    const written = await lastValueFrom(lines$.pipe(writeLines(stream), count()));
    expect(written).toBe(3);
    expect(writes).toEqual(['0\n', '1\n2\n']);
  });

  it('keeps every line while it waits for drain, however many wait', async () => {
    const stream = new PassThrough({ highWaterMark: 16 });
    const received: string[] = [];
    stream.setEncoding('utf8');
    // Nobody reads at first: the first write fills the buffer and 20,000 lines queue behind it.
    const done = lastValueFrom(
      range(0, 20_000).pipe(
        map((i) => `${i}\n`),
        writeLines(stream),
        count(),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    stream.on('data', (chunk: string) => received.push(chunk));
    await expect(done).resolves.toBe(20_000);
    const lines = received.join('').split('\n').slice(0, -1);
    expect(lines).toHaveLength(20_000);
    expect(lines[19_999]).toBe('19999');
  });
});
