/**
 * One pass over the raw bytes of a line, before `JSON.parse`, for the two checks that
 * `JSON.parse` cannot make (docs/lines.md#lines-bad-line and docs/lines.md#lines-bad-line):
 *
 * - the nesting depth, so that a line of a million `[` is refused before a parser builds a
 *   million arrays;
 * - lone surrogate escapes (`"\ud800"`, `"\udfff"`), which `JSON.parse` accepts and the
 *   reference rejects as a parse error, in string values and in member names alike.
 *
 * The scan trusts the JSON syntax: on a line that is not valid JSON its answers may be wrong,
 * which is harmless because `JSON.parse` then rejects the line anyway. All JSON structure is
 * ASCII, and UTF-8 never puts an ASCII byte inside a multi-byte character, so a byte scan is
 * exact for valid input.
 */
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, LOWER_U, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './bytes.js';

export interface JsonScan {
  /** True when some array or object lies deeper than the limit. The scan stops there. */
  readonly tooDeep: boolean;
  /** True when some string holds an escaped surrogate that is not part of a valid pair. */
  readonly loneSurrogate: boolean;
}

/**
 * Depth counts containers, and the top-level one is level 1: with `maxDepth` 10, ten nested
 * arrays or objects (the message object included) are accepted and eleven are not.
 */
export function scanJson(bytes: Uint8Array, maxDepth: number): JsonScan {
  let depth = 0;
  let loneSurrogate = false;
  const n = bytes.length;
  // The next quote and backslash at or after the scan position; string contents are skipped
  // with the native indexOf, which is several times faster than a byte loop on long strings.
  let nextQuote = -1;
  let nextBackslash = -1;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) return { tooDeep: true, loneSurrogate };
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth -= 1;
    } else if (b === QUOTE) {
      // Inside a string: a high surrogate escape that still waits for its low half.
      let pendingHigh = false;
      i += 1;
      for (;;) {
        if (nextQuote < i) nextQuote = indexOrEnd(bytes, QUOTE, i);
        if (nextBackslash < i) nextBackslash = indexOrEnd(bytes, BACKSLASH, i);
        if (nextQuote <= nextBackslash) {
          // The string ends (or the input does) before any further escape.
          if (pendingHigh) loneSurrogate = true;
          i = nextQuote;
          break;
        }
        // Any character between the last escape and this one ends a pending high surrogate.
        if (pendingHigh && nextBackslash > i) loneSurrogate = true;
        i = nextBackslash;
        if (bytes[i + 1] !== LOWER_U) {
          if (pendingHigh) loneSurrogate = true;
          pendingHigh = false;
          i += 2;
          continue;
        }
        const unit = hex4(bytes, i + 2);
        const low = unit >= 0xdc00 && unit <= 0xdfff;
        if (pendingHigh !== low) loneSurrogate = true;
        pendingHigh = unit >= 0xd800 && unit <= 0xdbff;
        i += 6;
      }
    }
    i += 1;
  }
  return { tooDeep: false, loneSurrogate };
}

/** The index of `byte` at or after `from`, or the length of `bytes`. */
function indexOrEnd(bytes: Uint8Array, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at < 0 ? bytes.length : at;
}

/** The value of four hex digits at `at`, or -1. */
function hex4(bytes: Uint8Array, at: number): number {
  let value = 0;
  for (let k = 0; k < 4; k += 1) {
    const digit = hexDigit(bytes[at + k]);
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

function hexDigit(b: number | undefined): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}
