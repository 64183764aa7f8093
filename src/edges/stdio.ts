/**
 * Node streams as observables: chunks in, lines out with back-pressure (docs/lines.md#lines-framing, docs/limits.md#limits-memory).
 */
import { Observable } from 'rxjs';
import type { Readable, Writable } from 'node:stream';
import { BridgeError } from '../protocol/bridgeError.js';
import { writeBatch } from './writePieces.js';
import type { Line } from './writePieces.js';

/**
 * Emits each chunk of a readable stream; completes at its end. A stream that ended or closed
 * before the subscription completes at once (errors with its error): a stream ends even when
 * nobody reads it, once it is empty (an upstream child that closes its stdout before the bridge
 * adopts it, docs/upstream.md#upstream-stdio-stop), and its 'end' and 'close' would never come again.
 */
export function readChunks(stream: Readable): Observable<Uint8Array> {
  return new Observable<Uint8Array>((subscriber) => {
    if (stream.errored !== null) return subscriber.error(stream.errored);
    if (stream.readableEnded || stream.destroyed) return subscriber.complete();
    const onData = (chunk: Buffer | string): void =>
      subscriber.next(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    const onEnd = (): void => subscriber.complete();
    const onError = (error: Error): void => subscriber.error(error);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('close', onEnd);
    stream.once('error', onError);
    return () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      stream.off('error', onError);
    };
  });
}

/** Settings of writeLines. */
export interface WriteLinesOptions {
  /** How a failure of the stream ends the pipeline: it completes (default) or errors. */
  readonly failure?: 'end' | 'error';
}

/**
 * Writes lines in order and waits for 'drain' whenever `write()` returns false, so a client
 * that does not read its stdout pushes back on the bridge instead of growing the stream's buffer.
 * Emits once per line handed to the stream; completes after the last one.
 *
 * The first line of a turn of the event loop is written at once; the lines that follow it in the
 * same turn go out together in one `write` at the end of the turn (`setImmediate`), so that lines
 * made in separate microtasks of one turn (the answers of an in-process server in embedded mode)
 * share a write too. A write per line costs a system call each, which was a fifth of the bridge's
 * time under pipelined load (a quarter of the embedded legacy path's time).
 * The queue is drained in a loop, never recursively, so any number of lines can wait for a
 * 'drain' (a recursive `concatMap` drain overflowed the stack after a few thousand waiting lines
 * and stopped writing for good).
 * A line may be pieces (`encodeFrames({ rawResults: true })`): they are written in order, not joined.
 *
 * A failure of the stream ends the pipeline at once instead of leaving it running on a dead
 * stream: an 'error' of the stream (EPIPE: the reader went away), or a line that finds the stream
 * destroyed or ended. The lines still queued are dropped and the source is unsubscribed. With
 * `failure: 'end'` (the default) the observable completes: the owner of the stream has its
 * 'error' event (serveStdio logs it; EPIPE is the end of the client, as the end of stdin is).
 * With `failure: 'error'` it errors with the stream's error, or with `closed` for a stream closed
 * without one, so that the failure reaches the connection (the loss of an upstream's stdin).
 */
export function writeLines(
  stream: Writable,
  options: WriteLinesOptions = {},
): (lines$: Observable<string | readonly (string | Uint8Array)[]>) => Observable<void> {
  const errors = options.failure === 'error';
  return (lines$) =>
    new Observable<void>((subscriber) => {
      let queue: Line[] = [];
      let scheduled = false;
      let waiting = false;
      let sourceDone = false;

      /** The stream failed: the rest is not written, and the pipeline ends (options.failure). */
      const fail = (error: unknown): void => {
        queue = [];
        if (errors) subscriber.error(error);
        else subscriber.complete();
      };
      const onError = (error: unknown): void => fail(error);
      const closedError = (): BridgeError =>
        new BridgeError('closed', { detail: 'the stream was closed before every line was written' });
      // An 'error' while waiting for the drain is onError's; a 'close' without one dropped the
      // lines that the stream still held.
      const onDrain = (): void => {
        stream.off('drain', onDrain);
        stream.off('close', onDrain);
        waiting = false;
        if (stream.destroyed) fail(stream.errored ?? closedError());
        else flush();
      };
      const flush = (): void => {
        scheduled = false;
        if (subscriber.closed) return;
        while (!waiting && queue.length > 0) {
          const lines = queue;
          queue = [];
          if (stream.destroyed || stream.writableEnded) {
            fail(stream.errored ?? closedError());
            return;
          }
          if (!writeBatch(stream, lines)) {
            waiting = true;
            stream.on('drain', onDrain);
            stream.once('close', onDrain);
          }
          for (let i = 0; i < lines.length; i++) subscriber.next();
        }
        if (sourceDone && !waiting && queue.length === 0) subscriber.complete();
      };
      const schedule = (): void => {
        if (scheduled) return;
        scheduled = true;
        setImmediate(flush);
      };
      /** The first line of a turn goes out at once (no added latency); the rest of the turn waits. */
      const push = (line: Line): void => {
        if (subscriber.closed) return;
        queue.push(line);
        if (waiting) return;
        if (!scheduled) flush();
        schedule();
      };

      stream.on('error', onError);
      const subscription = lines$.subscribe({
        next: push,
        error: (error: unknown) => {
          flush();
          subscriber.error(error);
        },
        complete: () => {
          sourceDone = true;
          schedule();
        },
      });
      return () => {
        subscription.unsubscribe();
        stream.off('error', onError);
        stream.off('drain', onDrain);
        stream.off('close', onDrain);
      };
    });
}
