/**
 * The lines of a child's stdout for `doctor`, each bounded by `--max-line-bytes` as the bridge
 * bounds them (docs/limits.md): a longer line ends the reading instead of growing the buffer.
 */
import type { Readable } from 'node:stream';

export interface LineReader {
  /** The next line; `undefined` at the end of the stream or after a line over the limit. */
  next(): Promise<string | undefined>;
  /** Whether the reading ended on a line over the limit. */
  readonly tooLong: boolean;
  close(): void;
}

export function readLines(stream: Readable, maxLineBytes: number): LineReader {
  const ready: string[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // A stream that ended before (empty, nobody reading) sends no 'end' again (src/edges/stdio.ts).
  let ended = stream.readableEnded || stream.destroyed;
  let tooLong = false;
  let waiter: (() => void) | undefined;
  const wake = (): void => {
    const w = waiter;
    waiter = undefined;
    w?.();
  };
  const onData = (chunk: Buffer): void => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, nl));
      ready.push(Buffer.concat(pending).toString('utf8'));
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
    }
    pending.push(chunk.subarray(start));
    pendingBytes += chunk.length - start;
    if (pendingBytes > maxLineBytes) {
      tooLong = true;
      stop();
    }
    wake();
  };
  const stop = (): void => {
    ended = true;
    pending = [];
    stream.off('data', onData);
    stream.resume();
    wake();
  };
  stream.on('data', onData);
  stream.once('end', stop);
  stream.once('error', stop);
  return {
    async next() {
      while (ready.length === 0 && !ended) await new Promise<void>((resolve) => (waiter = resolve));
      return tooLong ? undefined : ready.shift();
    },
    get tooLong() {
      return tooLong;
    },
    close: stop,
  };
}
