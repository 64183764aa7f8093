/**
 * The byte spans of the members of a response's `result` object, read from the raw bytes of its
 * line, so that members which shaping leaves unchanged can be written to the client from these
 * bytes instead of a second serialisation: a large result is held once, not twice.
 *
 * Runs only on a line that `JSON.parse` has accepted: the scan trusts the syntax, and answers
 * `undefined` (no pass-through) for anything it does not expect. All JSON structure is ASCII,
 * and UTF-8 never puts an ASCII byte inside a multi-byte character, so a byte scan is exact.
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

/** One member `"key":value`: from its key's opening quote up to just after its value. */
export interface MemberSpan {
  readonly start: number;
  readonly end: number;
  /**
   * False when the value holds a number that `JSON.stringify` of its parsed value may not give
   * back as the same number (one with an exponent: `1E400` is Infinity, written `null`; or more
   * than 300 digits): such a member is written from its parsed value, never raw. A `-0` does
   * pass raw: the same number for the client, where `JSON.stringify` writes `0`.
   */
  readonly exact: boolean;
}

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

const keyDecoder = new TextDecoder('utf-8');

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
/** A run of more digits than this is treated as a possible overflow (a double overflows at 309). */
const MAX_DIGITS = 300;

/** Set by the skips of the value being scanned: it has a number that may not round-trip. */
let inexact = false;

/** Thrown inside the scan for input it does not expect; never leaves this module (one instance). */
const UNEXPECTED = new Error('unexpected JSON in a result line');

/**
 * The members of the top-level `result` object of a JSON-RPC message line, by (decoded) key.
 * `undefined` when the line is not an object, has no `result` object, has a carriage return
 * (skipSpace), or has a duplicated key at the top level or in the result: `JSON.parse` keeps the
 * last of duplicates while the bytes hold both, so such a result never passes through raw.
 */
export function resultMemberSpans(bytes: Uint8Array): Map<string, MemberSpan> | undefined {
  try {
    let result: Map<string, MemberSpan> | undefined;
    const top = scanObject(bytes, skipSpace(bytes, 0), (key, valueStart) => {
      if (key !== 'result') return skipValue(bytes, valueStart);
      if (bytes[valueStart] !== OPEN_BRACE) throw UNEXPECTED;
      const members = new Map<string, MemberSpan>();
      const end = scanObject(bytes, valueStart, (_key, start) => skipValue(bytes, start), members);
      result = members;
      return end;
    });
    if (skipSpace(bytes, top) !== bytes.length) return undefined;
    return result;
  } catch (error: unknown) {
    if (error === UNEXPECTED) return undefined;
    throw error;
  }
}

/**
 * Walks the object that opens at `at` and returns the index just after its closing brace.
 * `value(key, valueStart)` returns where each value ends. With `members`, records each member's
 * span there. A duplicated key throws UNEXPECTED.
 */
function scanObject(
  bytes: Uint8Array,
  at: number,
  value: (key: string, valueStart: number) => number,
  members: Map<string, MemberSpan> = new Map(),
): number {
  if (bytes[at] !== OPEN_BRACE) throw UNEXPECTED;
  let i = skipSpace(bytes, at + 1);
  if (bytes[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (bytes[i] !== QUOTE) throw UNEXPECTED;
    const start = i;
    const keyEnd = skipString(bytes, i);
    const key = decodeKey(bytes, start, keyEnd);
    if (members.has(key)) throw UNEXPECTED;
    i = skipSpace(bytes, keyEnd);
    if (bytes[i] !== COLON) throw UNEXPECTED;
    const valueStart = skipSpace(bytes, i + 1);
    inexact = false;
    const end = value(key, valueStart);
    members.set(key, { start, end, exact: !inexact });
    i = skipSpace(bytes, end);
    if (bytes[i] === CLOSE_BRACE) return i + 1;
    if (bytes[i] !== COMMA) throw UNEXPECTED;
    i = skipSpace(bytes, i + 1);
  }
}

/** A member name: JSON.parse of its bytes, so that escapes such as `\u0072` decode as they do there. */
function decodeKey(bytes: Uint8Array, start: number, end: number): string {
  const key: unknown = JSON.parse(keyDecoder.decode(bytes.subarray(start, end)));
  if (typeof key !== 'string') throw UNEXPECTED;
  return key;
}

/** The index after the string whose opening quote is at `at`. */
function skipString(bytes: Uint8Array, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote < 0) throw UNEXPECTED;
    // The quote is escaped when an odd number of backslashes precedes it.
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The index after the value that starts at `at` (a string, a container, or a literal). */
function skipValue(bytes: Uint8Array, at: number): number {
  const b = bytes[at];
  if (b === QUOTE) return skipString(bytes, at);
  if (b === OPEN_BRACE || b === OPEN_BRACKET) return skipContainer(bytes, at);
  // A number, true, false or null: up to the next delimiter.
  let i = at;
  let digits = 0;
  for (;;) {
    const c = bytes[i];
    if (c === undefined || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
    digits = countDigits(bytes, i, c, digits);
    i += 1;
  }
  if (i === at) throw UNEXPECTED;
  return i;
}

/** The index after the array or object that opens at `at`; strings inside are skipped whole. */
function skipContainer(bytes: Uint8Array, at: number): number {
  let depth = 0;
  let digits = 0;
  let i = at;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i];
    if (b === QUOTE) {
      i = skipString(bytes, i);
      continue;
    }
    digits = countDigits(bytes, i, b as number, digits);
    // A carriage return: see skipSpace.
    if (b === CR) throw UNEXPECTED;
    if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth += 1;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
    i += 1;
  }
  throw UNEXPECTED;
}

/**
 * The length of the run of digits that byte `b` at `i` continues (0 after any other byte);
 * marks the value inexact at an exponent (an `e` or `E` after a digit: in `true` and `false` it
 * follows a letter) or a run longer than MAX_DIGITS.
 */
function countDigits(bytes: Uint8Array, i: number, b: number, digits: number): number {
  if (b >= DIGIT_0 && b <= DIGIT_9) {
    if (digits >= MAX_DIGITS) inexact = true;
    return digits + 1;
  }
  if (b === LOWER_E || b === UPPER_E) {
    const before = bytes[i - 1] ?? 0;
    if (before >= DIGIT_0 && before <= DIGIT_9) inexact = true;
  }
  return 0;
}

function isSpace(b: number): boolean {
  return b === SPACE || b === TAB || b === LF || b === CR;
}

/**
 * The index after the whitespace at `at`. A carriage return (valid JSON has one only as
 * whitespace) throws UNEXPECTED: a line to the client must not carry one outside strings
 * (encodeFrames rule 1), so such a line never passes raw. Checked here and in skipContainer
 * rather than by another pass over the line.
 */
function skipSpace(bytes: Uint8Array, at: number): number {
  let i = at;
  for (;;) {
    const b = bytes[i];
    if (b === CR) throw UNEXPECTED;
    if (b === undefined || !isSpace(b)) return i;
    i += 1;
  }
}

/** Where the value of `member` starts: after its key, the colon and any whitespace. */
export function valueStartOf(bytes: Uint8Array, member: MemberSpan): number {
  return skipSpace(bytes, skipSpace(bytes, skipString(bytes, member.start)) + 1);
}

/**
 * The members of each object of the array that is the value of `member`, by (decoded) key, in
 * order. `undefined` when the value is not an array of objects or an object has a duplicated key.
 * Like resultMemberSpans, it trusts the syntax of a line that a parser accepts.
 */
export function arrayObjectSpans(
  bytes: Uint8Array,
  member: MemberSpan,
): Map<string, MemberSpan>[] | undefined {
  try {
    let i = valueStartOf(bytes, member);
    if (bytes[i] !== OPEN_BRACKET) return undefined;
    const objects: Map<string, MemberSpan>[] = [];
    i = skipSpace(bytes, i + 1);
    if (bytes[i] === CLOSE_BRACKET) return objects;
    for (;;) {
      const members = new Map<string, MemberSpan>();
      i = skipSpace(
        bytes,
        scanObject(bytes, i, (_key, start) => skipValue(bytes, start), members),
      );
      objects.push(members);
      if (bytes[i] === CLOSE_BRACKET) return objects;
      if (bytes[i] !== COMMA) return undefined;
      i = skipSpace(bytes, i + 1);
    }
  } catch (error: unknown) {
    if (error === UNEXPECTED) return undefined;
    throw error;
  }
}
