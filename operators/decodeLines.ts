import { Observable } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import { createLineSplitter } from '../src/protocol/lines.js';
import type { RawLine } from '../src/protocol/lines.js';
import { DEFAULT_MAX_DEPTH, parseLine } from '../src/protocol/parseLine.js';
import type { Inbound } from '../src/protocol/parseLine.js';

/** Settings of decodeLines. */
export interface DecodeLinesConfig {
  /** Longest line in bytes, without the newline. Default 64 MiB (docs/lines.md#lines-bad-line). */
  readonly maxLineBytes: number;
  /** Deepest nesting of arrays and objects. Default 64. */
  readonly maxDepth: number;
}

/** The defaults of decodeLines (docs/lines.md#lines-bad-line). */
export const DEFAULT_DECODE_LINES_CONFIG: DecodeLinesConfig = Object.freeze({
  maxLineBytes: 64 * 1024 * 1024,
  maxDepth: DEFAULT_MAX_DEPTH,
});

const END = Symbol('end');

/**
 * Splits byte chunks into newline-delimited JSON-RPC frames.
 *
 * ```text
 * chunks:  -[{"a"]-[:1}\n\n{x\n]-|
 * inbound: --------(fb)---------|   f = frame, b = bad line (parse_error)
 * ```
 *
 * A bad line is `parse_error`, `invalid_request_shape`, `line_too_long` or `too_deep`. A line
 * longer than `maxLineBytes` is never held in memory whole: only its first and last 256 bytes are
 * kept, for the id (src/protocol/lines.ts).
 *
 * Rules (marbles/decodeLines.marbles.test.ts):
 * 1. a frame split across chunks is one frame, and several frames in one chunk come in order
 * 2. blank lines of spaces and tabs and a trailing carriage return are skipped
 * 3. a bad line is a value with the id recovered from its bytes, never a stream error
 * 4. a line longer than maxLineBytes is line_too_long with the id from its first or last 256 bytes
 * 5. an unterminated last line is decoded at the end of input
 * 6. a chunk that arrives while the lines of an earlier chunk are emitted waits its turn
 *
 * @example
 * import { of } from 'rxjs';
 * import { decodeLines } from 'mcp-bridge-sdk/operators';
 * const kinds: string[] = [];
 * of(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n\nnot json\n'))
 *   .pipe(decodeLines({ maxLineBytes: 1 << 20 }))
 *   .subscribe((inbound) => kinds.push(inbound.kind));
 * // kinds: ['frame', 'bad'] (the blank line is skipped)
 */
export function decodeLines(config: Partial<DecodeLinesConfig> = {}): OperatorFunction<Uint8Array, Inbound> {
  const { maxLineBytes, maxDepth } = { ...DEFAULT_DECODE_LINES_CONFIG, ...config };
  if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1) throw new RangeError('maxLineBytes must be ≥ 1');
  if (!Number.isInteger(maxDepth) || maxDepth < 1) throw new RangeError('maxDepth must be ≥ 1');
  const limits = { maxLineBytes, maxDepth };
  // Written by hand, not with concatMap, map and filter: one inner subscription per chunk and
  // three operators per line were a measurable part of every forwarded request.
  return (chunks$) =>
    new Observable<Inbound>((subscriber) => {
      const splitter = createLineSplitter(maxLineBytes); // per subscription
      // Chunks (and the end) that arrive while the lines of an earlier chunk are being emitted
      // wait their turn, so lines always come in input order.
      const waiting: (Uint8Array | typeof END)[] = [];
      let busy = false;
      const emit = (lines: readonly RawLine[]): void => {
        for (const line of lines) {
          if (subscriber.closed) return;
          const inbound = parseLine(line, limits);
          if (inbound.kind !== 'blank') subscriber.next(inbound);
        }
      };
      const take = (item: Uint8Array | typeof END): void => {
        waiting.push(item);
        if (busy) return;
        busy = true;
        try {
          while (waiting.length > 0 && !subscriber.closed) {
            const next = waiting.shift() as Uint8Array | typeof END;
            if (next === END) {
              emit(splitter.end());
              subscriber.complete();
            } else {
              emit(splitter.push(next));
            }
          }
        } catch (error: unknown) {
          subscriber.error(error);
        } finally {
          busy = false;
        }
      };
      return chunks$.subscribe({
        next: take,
        error: (error: unknown) => subscriber.error(error),
        complete: () => take(END),
      });
    });
}
