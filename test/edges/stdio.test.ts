import { PassThrough, Writable } from 'node:stream';
import { Observable, Subject, firstValueFrom, lastValueFrom, range, map, count, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { readChunks, writeLines } from '../../src/edges/stdio.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';

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

describe('readChunks', () => {
  it('emits the chunks and completes at the end of the stream', async () => {
    const stream = new PassThrough();
    const chunks = lastValueFrom(readChunks(stream).pipe(toArray()));
    stream.write('a');
    stream.end('b');
    expect((await chunks).map((chunk) => Buffer.from(chunk).toString('utf8')).join('')).toBe('ab');
  });

  it('completes at once for a stream that ended before the subscription, unread', async () => {
    // A stream ends without a reader once it is empty: its 'end' is gone before anyone listens
    // (an upstream child that closed its stdout before the bridge adopted it).
    const stream = new PassThrough();
    stream.end();
    stream.read(0);
    await new Promise((resolve) => stream.once('end', resolve));
    expect(await lastValueFrom(readChunks(stream).pipe(toArray()))).toEqual([]);
  });

  it('completes at once for a stream destroyed before the subscription', async () => {
    const stream = new PassThrough();
    stream.destroy();
    await new Promise((resolve) => stream.once('close', resolve));
    expect(await lastValueFrom(readChunks(stream).pipe(toArray()))).toEqual([]);
  });

  it('errors with the error of a stream that failed before the subscription', async () => {
    const stream = new PassThrough();
    stream.on('error', () => undefined);
    stream.destroy(new Error('EPIPE-like'));
    await new Promise((resolve) => stream.once('close', resolve));
    await expect(firstValueFrom(readChunks(stream))).rejects.toThrow('EPIPE-like');
  });
});

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

  it('lines made in separate microtasks of one turn share one write', async () => {
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
    await waitFor(() => stream.writableNeedDrain, { what: 'a full buffer' });
    stream.on('data', (chunk: string) => received.push(chunk));
    await expect(done).resolves.toBe(20_000);
    const lines = received.join('').split('\n').slice(0, -1);
    expect(lines).toHaveLength(20_000);
    expect(lines[19_999]).toBe('19999');
  });
});

/** What the pipeline of `lines$` into `stream` ended with, and the lines it said it handed over. */
function outcome(
  stream: Writable,
  lines$: Observable<string>,
  failure: 'end' | 'error' = 'error',
): Promise<{ written: number; error?: unknown; completed?: true }> {
  return new Promise((resolve) => {
    let written = 0;
    lines$.pipe(writeLines(stream, { failure })).subscribe({
      next: () => written++,
      error: (error: unknown) => resolve({ written, error }),
      complete: () => resolve({ written, completed: true }),
    });
  });
}

const epipe = (): NodeJS.ErrnoException => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });

/** A writable whose every write fails as a pipe without reader does. */
function brokenPipe(): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  // No 'error' listener but the pipeline's own: an unhandled 'error' would be an uncaught exception.
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString('utf8'));
      callback(epipe());
    },
  });
  return { stream, writes };
}

describe('writeLines when the stream fails', () => {
  it('by default a failed write (EPIPE) ends the pipeline at once: it completes, the source is unsubscribed', async () => {
    const { stream, writes } = brokenPipe();
    const lines$ = new Subject<string>();
    const ended = outcome(stream, lines$, 'end');
    lines$.next('one\n');
    const result = await ended;
    expect(result).toEqual({ written: 1, completed: true });
    expect(lines$.observed).toBe(false);
    expect(writes).toEqual(['one\n']);
  });

  it('with failure "error" a write that fails (EPIPE: the reader went away) errors the pipeline with that error, no uncaught error', async () => {
    const { stream, writes } = brokenPipe();
    const lines$ = new Subject<string>();
    const ended = outcome(stream, lines$);
    lines$.next('one\n');
    const result = await ended;
    expect(result.written).toBe(1);
    expect(result.completed).toBeUndefined();
    expect(result.error).toMatchObject({ code: 'EPIPE', message: 'write EPIPE' });
    // The source is unsubscribed: later lines go nowhere.
    expect(lines$.observed).toBe(false);
    expect(writes).toEqual(['one\n']);
  });

  it('a line for a stream destroyed without an error fails with closed', async () => {
    const stream = new PassThrough();
    stream.destroy();
    const result = await outcome(stream, range(0, 2).pipe(map((i) => `${i}\n`)));
    expect(result.written).toBe(0);
    expect(result.error).toBeInstanceOf(BridgeError);
    expect(result.error).toMatchObject({
      code: 'closed',
      detail: 'the stream was closed before every line was written',
    });
  });

  it('a stream destroyed while the pipeline waits for its drain fails the pipeline with closed', async () => {
    const stream = new PassThrough({ highWaterMark: 1 });
    const lines$ = new Subject<string>();
    const ended = outcome(stream, lines$);
    lines$.next('full\n');
    lines$.next('waiting\n');
    expect(stream.writableNeedDrain).toBe(true);
    stream.destroy();
    const result = await ended;
    expect(result.written).toBe(1);
    expect(result.error).toMatchObject({ code: 'closed' });
  });

  it('a stream destroyed with an error while the pipeline waits fails it with that error', async () => {
    const stream = new PassThrough({ highWaterMark: 1 });
    const lines$ = new Subject<string>();
    const ended = outcome(stream, lines$);
    lines$.next('full\n');
    stream.destroy(epipe());
    const result = await ended;
    expect(result.error).toMatchObject({ code: 'EPIPE' });
  });
});
