/**
 * One write of the lines of a turn (src/edges/stdio.ts `writeLines`). Lines of strings are
 * joined into one `write`, as before. A line of pieces (the raw bytes of a large upstream result,
 * src/protocol/rawResult.ts) is handed over piece by piece inside one cork, so that the stream
 * makes one vectored write of them and its Buffers are never copied or joined: a large result is
 * held once while it waits to be written.
 */
import type { Writable } from 'node:stream';

/** A line for the writer: one string, or pieces written in order without being joined. */
export type Line = string | readonly (string | Uint8Array)[];

/** Writes the lines in order; returns the `write()` result of the last chunk (false: wait for 'drain'). */
export function writeBatch(stream: Writable, lines: readonly Line[]): boolean {
  if (allStrings(lines)) return stream.write(lines.join(''));
  stream.cork();
  let ok = true;
  let text = '';
  for (const line of lines) {
    if (typeof line === 'string') {
      text += line;
      continue;
    }
    for (const piece of line) {
      if (typeof piece === 'string') {
        text += piece;
        continue;
      }
      if (text !== '') ok = stream.write(text);
      text = '';
      if (piece.length > 0) ok = stream.write(piece);
    }
  }
  if (text !== '') ok = stream.write(text);
  stream.uncork();
  return ok;
}

function allStrings(lines: readonly Line[]): lines is readonly string[] {
  for (const line of lines) if (typeof line !== 'string') return false;
  return true;
}
