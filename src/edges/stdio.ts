/**
 * Node streams as observables: chunks in, lines out with back-pressure (style.md §3.4).
 */
import { Observable, concatMap, defer, of } from 'rxjs';
import type { Readable, Writable } from 'node:stream';

/** Emits each chunk of a readable stream; completes at its end. */
export function readChunks(stream: Readable): Observable<Uint8Array> {
  return new Observable<Uint8Array>((subscriber) => {
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

/** Completes when one write is flushed far enough: at once, or at the next 'drain'. */
function writeOne(stream: Writable, text: string): Observable<void> {
  return defer(() => {
    if (stream.destroyed || stream.writableEnded) return of(undefined);
    if (stream.write(text)) return of(undefined);
    return new Observable<void>((subscriber) => {
      const done = (): void => {
        subscriber.next();
        subscriber.complete();
      };
      stream.once('drain', done);
      stream.once('close', done);
      stream.once('error', done);
      return () => {
        stream.off('drain', done);
        stream.off('close', done);
        stream.off('error', done);
      };
    });
  });
}

/**
 * Writes lines in order and waits for 'drain' whenever `write()` returns false, so a client
 * that does not read its stdout pushes back on the bridge instead of growing memory.
 */
export function writeLines(stream: Writable): (lines$: Observable<string>) => Observable<void> {
  return (lines$) => lines$.pipe(concatMap((line) => writeOne(stream, line)));
}
