/**
 * Recovers the id of a line that is not a valid message, from its raw bytes, so that the error
 * response names the request (docs/lines.md#lines-bad-line and docs/lines.md#lines-id-recovery).
 *
 * The head scan is tolerant: it walks the bytes as JSON tokens, tracks the nesting, and takes
 * the first `"id"` member of the top-level object, even when the line breaks later (or
 * earlier, in another member). The tail scan exists because the TS SDK 1.x writes `id` as the
 * last member: an over-long line then ends with `"id": <value>}`.
 */
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './bytes.js';
import type { RequestId } from './jsonrpc.js';
import { KEPT_BYTES } from './lines.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The top-level `"id"` (string or integer) in the first 256 bytes of `head`, else a trailing
 * `"id": <value>}` in the last 256 bytes of `tail`; null if neither exists.
 */
export function recoverId(head: Uint8Array, tail?: Uint8Array): RequestId | null {
  const fromHead = idInHead(head.subarray(0, KEPT_BYTES));
  if (fromHead !== undefined) return fromHead;
  if (tail === undefined) return null;
  return idAtEnd(tail.subarray(Math.max(0, tail.length - KEPT_BYTES))) ?? null;
}

const isSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

function skipSpace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && isSpace(bytes[i])) i += 1;
  return i;
}

/** Index after the closing quote of the string that opens at `i`, or -1 if it is cut off. */
function stringEnd(bytes: Uint8Array, i: number): number {
  for (let k = i + 1; k < bytes.length; k += 1) {
    const b = bytes[k];
    if (b === BACKSLASH) k += 1;
    else if (b === QUOTE) return k + 1;
  }
  return -1;
}

function idInHead(bytes: Uint8Array): RequestId | undefined {
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== OPEN_BRACE) return undefined;
  let depth = 1;
  i += 1;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b === QUOTE) {
      const end = stringEnd(bytes, i);
      if (end < 0) return undefined;
      if (depth === 1) {
        const afterKey = skipSpace(bytes, end);
        if (bytes[afterKey] === COLON && decodeString(bytes.subarray(i, end)) === 'id') {
          return idValue(bytes, skipSpace(bytes, afterKey + 1), false);
        }
      }
      i = end;
      continue;
    }
    if (b === OPEN_BRACE || b === OPEN_BRACKET) depth += 1;
    else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return undefined;
    }
    i += 1;
  }
  return undefined;
}

/**
 * The id value at `i`: a JSON string, or an integer literal. The value must be complete: a
 * number that touches the end of the bytes may be cut off, so it does not count.
 */
function idValue(bytes: Uint8Array, i: number, atEnd: boolean): RequestId | undefined {
  if (bytes[i] === QUOTE) {
    const end = stringEnd(bytes, i);
    if (end < 0) return undefined;
    return decodeString(bytes.subarray(i, end));
  }
  let k = i;
  if (bytes[k] === 0x2d) k += 1;
  const digitsStart = k;
  while (k < bytes.length && (bytes[k] ?? 0) >= 0x30 && (bytes[k] ?? 0) <= 0x39) k += 1;
  if (k === digitsStart) return undefined;
  // JSON forbids leading zeros (`01`).
  if (bytes[digitsStart] === 0x30 && k - digitsStart > 1) return undefined;
  const next = bytes[k];
  const terminated = next === undefined ? atEnd : isSpace(next) || next === COMMA || next === CLOSE_BRACE;
  if (!terminated) return undefined;
  const value = Number(String.fromCharCode(...bytes.subarray(i, k)));
  return Number.isSafeInteger(value) ? value : undefined;
}

/** Finds `"id" : <value> }` (with optional spaces) at the very end of `bytes`. */
function idAtEnd(bytes: Uint8Array): RequestId | undefined {
  let end = bytes.length;
  while (end > 0 && isSpace(bytes[end - 1])) end -= 1;
  if (bytes[end - 1] !== CLOSE_BRACE) return undefined;
  end -= 1;
  while (end > 0 && isSpace(bytes[end - 1])) end -= 1;
  const valueStart = valueStartBefore(bytes, end);
  if (valueStart < 0) return undefined;
  let k = valueStart;
  while (k > 0 && isSpace(bytes[k - 1])) k -= 1;
  if (bytes[k - 1] !== COLON) return undefined;
  k -= 1;
  while (k > 0 && isSpace(bytes[k - 1])) k -= 1;
  // The member name must be exactly "id", and a member separator or the object start before it.
  if (
    k < 4 ||
    bytes[k - 1] !== QUOTE ||
    bytes[k - 2] !== 0x64 ||
    bytes[k - 3] !== 0x69 ||
    bytes[k - 4] !== QUOTE
  ) {
    return undefined;
  }
  let before = k - 4;
  while (before > 0 && isSpace(bytes[before - 1])) before -= 1;
  if (before === 0 || (bytes[before - 1] !== COMMA && bytes[before - 1] !== OPEN_BRACE)) return undefined;
  return idValue(bytes.subarray(0, end), valueStart, true);
}

/** Start index of the string or integer value that ends just before `end`, or -1. */
function valueStartBefore(bytes: Uint8Array, end: number): number {
  if (end === 0) return -1;
  if (bytes[end - 1] === QUOTE) {
    for (let k = end - 2; k >= 0; k -= 1) {
      if (bytes[k] !== QUOTE) continue;
      // A quote after an odd number of backslashes is escaped.
      let slashes = 0;
      while (k - 1 - slashes >= 0 && bytes[k - 1 - slashes] === BACKSLASH) slashes += 1;
      if (slashes % 2 === 0) return k;
    }
    return -1;
  }
  let k = end;
  while (k > 0 && (bytes[k - 1] ?? 0) >= 0x30 && (bytes[k - 1] ?? 0) <= 0x39) k -= 1;
  if (k === end) return -1;
  if (k > 0 && bytes[k - 1] === 0x2d) k -= 1;
  return k;
}

/** Decodes a JSON string token (quotes included); undefined when it is not valid. */
function decodeString(token: Uint8Array): string | undefined {
  try {
    const text = decoder.decode(token);
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'string' || hasLoneSurrogate(value)) return undefined;
    return value;
  } catch {
    return undefined;
  }
}

/** True when `value` holds a UTF-16 surrogate that is not part of a pair. */
function hasLoneSurrogate(value: string): boolean {
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit >= 0xdc00) return true;
    const next = value.charCodeAt(i + 1);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
    i += 1;
  }
  return false;
}
