/**
 * Newline framing with a byte budget for the stdio edges (docs/lines.md#lines-bad-line).
 *
 * A generic splitter cannot serve the long-line rule: a line above the limit must still be
 * answered with the id of the request, so the splitter keeps its first and last 256 bytes
 * while the rest streams past, and memory stays bounded (docs/lines.md#lines-limits, docs/limits.md#limits-lines). Pure: no node:*.
 */

/** One line of input, or the trace of a line that was longer than the limit. */
export type RawLine =
  /** A line without its '\n' and without one trailing '\r'. */
  | { readonly kind: 'line'; readonly bytes: Uint8Array }
  /** A line above the limit: its length (without '\n' and one '\r') and its first and last bytes. */
  | {
      readonly kind: 'too_long';
      readonly length: number;
      readonly head: Uint8Array;
      readonly tail: Uint8Array;
    };

export interface LineSplitter {
  /**
   * Takes the next chunk of input; returns the lines it completes, in order. A line may be a
   * view of `chunk`, so the caller must not modify a chunk after pushing it (Node streams
   * never reuse chunk buffers). The splitter copies what it keeps for later pushes.
   */
  push(chunk: Uint8Array): RawLine[];
  /** At end of input: the last unterminated line, if any. The splitter is empty afterwards. */
  end(): RawLine[];
}

/** Bytes kept at each end of an over-long line for id recovery (docs/lines.md#lines-bad-line). */
export const KEPT_BYTES = 256;

const LF = 0x0a;
const CR = 0x0d;
/** The tail keeps one byte more than KEPT_BYTES so that a final '\r' can still be removed. */
const TAIL_CAPACITY = KEPT_BYTES + 1;

/** What the splitter keeps of a line above the limit: bounded by 2 x KEPT_BYTES + 1. */
interface Overflow {
  readonly head: Uint8Array;
  headLength: number;
  readonly tail: Uint8Array;
  tailLength: number;
  /** Bytes of the line so far, including a possible final '\r'. */
  length: number;
}

/**
 * Creates a splitter for lines of at most `maxLineBytes` bytes (the '\n' and one trailing
 * '\r' do not count). Throws a RangeError for a limit that is not a positive integer.
 */
export function createLineSplitter(maxLineBytes: number): LineSplitter {
  if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
    throw new RangeError(`maxLineBytes must be a positive integer, got ${String(maxLineBytes)}`);
  }
  // Pending parts of the current line while it fits the budget. Each part is a copy, so a
  // caller may reuse its chunk buffers.
  let parts: Uint8Array[] = [];
  let pendingBytes = 0;
  // Overflow state: set once the current line cannot fit anymore.
  let overflow: Overflow | undefined;

  const startOverflow = (): void => {
    overflow = {
      head: new Uint8Array(KEPT_BYTES),
      headLength: 0,
      tail: new Uint8Array(TAIL_CAPACITY),
      tailLength: 0,
      length: 0,
    };
    const all = parts;
    parts = [];
    pendingBytes = 0;
    for (const part of all) appendOverflow(part);
  };

  const appendOverflow = (segment: Uint8Array): void => {
    if (overflow === undefined || segment.length === 0) return;
    overflow.length += segment.length;
    if (overflow.headLength < KEPT_BYTES) {
      const take = Math.min(segment.length, KEPT_BYTES - overflow.headLength);
      overflow.head.set(segment.subarray(0, take), overflow.headLength);
      overflow.headLength += take;
    }
    const { tail } = overflow;
    if (segment.length >= TAIL_CAPACITY) {
      tail.set(segment.subarray(segment.length - TAIL_CAPACITY));
      overflow.tailLength = TAIL_CAPACITY;
      return;
    }
    const keep = Math.min(overflow.tailLength, TAIL_CAPACITY - segment.length);
    tail.copyWithin(0, overflow.tailLength - keep, overflow.tailLength);
    tail.set(segment, keep);
    overflow.tailLength = keep + segment.length;
  };

  /** Adds bytes of the current (unfinished) line. */
  const append = (segment: Uint8Array): void => {
    if (segment.length === 0) return;
    if (overflow !== undefined) {
      appendOverflow(segment);
      return;
    }
    parts.push(segment.slice());
    pendingBytes += segment.length;
    // One byte of slack: the last byte may be a '\r' that the end of the line removes.
    if (pendingBytes > maxLineBytes + 1) startOverflow();
  };

  /** Ends the current line and returns it. */
  const finish = (): RawLine => {
    if (overflow !== undefined) {
      const { head, headLength, tail, tailLength } = overflow;
      let length = overflow.length;
      let tailEnd = tailLength;
      if (tailEnd > 0 && tail[tailEnd - 1] === CR) {
        length -= 1;
        tailEnd -= 1;
      }
      const line: RawLine = {
        kind: 'too_long',
        length,
        head: head.slice(0, Math.min(headLength, length)),
        tail: tail.slice(Math.max(0, tailEnd - KEPT_BYTES), tailEnd),
      };
      overflow = undefined;
      return line;
    }
    const bytes = join(parts, pendingBytes);
    parts = [];
    pendingBytes = 0;
    const content =
      bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.subarray(0, bytes.length - 1) : bytes;
    if (content.length > maxLineBytes) {
      return {
        kind: 'too_long',
        length: content.length,
        head: content.slice(0, KEPT_BYTES),
        tail: content.slice(Math.max(0, content.length - KEPT_BYTES)),
      };
    }
    return { kind: 'line', bytes: content };
  };

  return {
    push(chunk: Uint8Array): RawLine[] {
      const lines: RawLine[] = [];
      let start = 0;
      for (let lf = chunk.indexOf(LF, start); lf !== -1; lf = chunk.indexOf(LF, start)) {
        if (parts.length === 0 && overflow === undefined) {
          // Fast path: the whole line lies in this chunk.
          lines.push(lineFromChunk(chunk, start, lf, maxLineBytes));
        } else {
          append(chunk.subarray(start, lf));
          lines.push(finish());
        }
        start = lf + 1;
      }
      append(chunk.subarray(start));
      return lines;
    },
    end(): RawLine[] {
      if (parts.length === 0 && overflow === undefined) return [];
      return [finish()];
    },
  };
}

/** A complete line inside one chunk, from `start` up to the '\n' at `lf`. */
function lineFromChunk(chunk: Uint8Array, start: number, lf: number, maxLineBytes: number): RawLine {
  const end = lf > start && chunk[lf - 1] === CR ? lf - 1 : lf;
  const length = end - start;
  if (length > maxLineBytes) {
    return {
      kind: 'too_long',
      length,
      head: chunk.slice(start, start + Math.min(KEPT_BYTES, length)),
      tail: chunk.slice(Math.max(start, end - KEPT_BYTES), end),
    };
  }
  // A view, not a copy: copying each small line costs five times more than the split itself.
  return { kind: 'line', bytes: chunk.subarray(start, end) };
}

function join(parts: readonly Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
