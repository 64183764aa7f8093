/**
 * A large result parsed without its large strings (bench/README.md, "One 16 MiB result"). The
 * long string members of the blocks of a result's `content` (the `text` of a text block, the
 * `data` of an image) are left out of the text that `JSON.parse` reads: each becomes a property
 * that decodes its string from the line's bytes when it is first read. A result that the rules
 * leave unchanged is then written from those bytes (rawResult.ts) and the string is never built:
 * the line is held once instead of three times (its bytes, its decoded text, the parsed string).
 *
 * The value is the one `JSON.parse` of the whole line gives: every reader (shaping, a downgrade
 * that copies a block, `JSON.stringify`) gets the same string through the property. A line that
 * is not exactly valid JSON is not parsed here (`undefined`): the strings left out are checked
 * as `JSON.parse` checks a string (UTF-8, control characters, escapes), the rest is decoded with
 * a fatal decoder and parsed by `JSON.parse`.
 */
import { BACKSLASH, QUOTE } from './bytes.js';
import type { JsonObject } from './jsonrpc.js';
import { arrayObjectSpans, valueStartOf } from './memberSpans.js';
import type { MemberSpan } from './memberSpans.js';

/** Strings of a content block from this length on (with their quotes) are decoded when read. */
export const LAZY_STRING_MIN_BYTES = 64 * 1024;

/** One string literal left out of the skeleton: block `index`, member `key`, bytes [start, end). */
interface LazyString {
  readonly index: number;
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

// As in parseLine.ts: invalid UTF-8 is a parse error, a byte order mark stays in the text.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The parsed line, with the long strings of `result.content[i]` decoded when read; `undefined`
 * when there is no such string or the line is not valid JSON (the caller parses it whole).
 * `spans` are the result's members (resultMemberSpans). The caller has checked the nesting depth
 * and lone surrogate escapes of the whole line (scanJson).
 */
export function parseLazily(
  bytes: Uint8Array,
  spans: ReadonlyMap<string, MemberSpan>,
  minBytes = LAZY_STRING_MIN_BYTES,
): unknown {
  const content = spans.get('content');
  if (content === undefined) return undefined;
  const blocks = arrayObjectSpans(bytes, content);
  if (blocks === undefined) return undefined;
  const lazy: LazyString[] = [];
  blocks.forEach((members, index) => {
    for (const [key, span] of members) {
      const start = valueStartOf(bytes, span);
      if (key !== '__proto__' && bytes[start] === QUOTE && span.end - start >= minBytes) {
        lazy.push({ index, key, start, end: span.end });
      }
    }
  });
  if (lazy.length === 0 || !lazy.every((s) => validLiteral(bytes, s.start, s.end))) return undefined;
  let value: unknown;
  try {
    let text = '';
    let at = 0;
    for (const s of lazy) {
      text += `${decoder.decode(bytes.subarray(at, s.start))}""`;
      at = s.end;
    }
    value = JSON.parse(text + decoder.decode(bytes.subarray(at)));
  } catch {
    return undefined;
  }
  const parsed = (value as { result?: { content?: unknown } } | null)?.result?.content;
  if (!Array.isArray(parsed)) return undefined;
  for (const s of lazy) {
    const block = parsed[s.index] as JsonObject | undefined;
    // The skeleton's empty string must be where the scan put it.
    if (block?.[s.key] !== '') return undefined;
    defineLazy(block, s.key, bytes.subarray(s.start, s.end));
  }
  return value;
}

/** A string property read from `literal` (a JSON string literal) when first read; writable. */
function defineLazy(object: JsonObject, key: string, literal: Uint8Array): void {
  let cached: string | undefined;
  Object.defineProperty(object, key, {
    enumerable: true,
    configurable: true,
    get: () => (cached ??= JSON.parse(decoder.decode(literal)) as string),
    set: (value: unknown) =>
      Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true }),
  });
}

const HEX: ReadonlySet<number> = new Set([...'0123456789abcdefABCDEF'].map((c) => c.charCodeAt(0)));
const ESCAPES: ReadonlySet<number> = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
const LOWER_U = 0x75;
/** Decoded in pieces of this size: each text is small and short-lived, none is of the whole string. */
const PIECE = 32 * 1024;
// eslint-disable-next-line no-control-regex -- the characters that JSON forbids in a string
const CONTROL = /[\u0000-\u001f]/u;

/**
 * True when bytes [start, end) are a JSON string literal as `JSON.parse` accepts it: quotes at
 * both ends (the scan ended it at the first unescaped quote), valid UTF-8, no control character,
 * only the escapes of RFC 8259 §7. Native work: a streaming decode in small pieces, a regular
 * expression on each, `indexOf` for the escapes (the rest of the line is decoded fatally).
 */
function validLiteral(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start < 2 || bytes[start] !== QUOTE || bytes[end - 1] !== QUOTE) return false;
  const last = end - 1;
  try {
    const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    for (let at = start + 1; at < last; at += PIECE) {
      if (CONTROL.test(utf8.decode(bytes.subarray(at, Math.min(last, at + PIECE)), { stream: true })))
        return false;
    }
    utf8.decode();
  } catch {
    return false;
  }
  for (let i = bytes.indexOf(BACKSLASH, start + 1); i !== -1 && i < last; i = bytes.indexOf(BACKSLASH, i)) {
    const e = bytes[i + 1] as number;
    if (e === LOWER_U) {
      for (let h = i + 2; h < i + 6; h++) if (h >= last || !HEX.has(bytes[h] as number)) return false;
      i += 6;
    } else {
      if (i + 1 >= last || !ESCAPES.has(e)) return false;
      i += 2;
    }
  }
  return true;
}

/**
 * True when `bytes` are valid UTF-8 as a fatal TextDecoder decides (no overlong form, no
 * surrogate, nothing above U+10FFFF; RFC 3629 §4), checked on the bytes: no text is made.
 */
export function isUtf8(bytes: Uint8Array): boolean {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return false;
    const second = bytes[i + 1];
    if (second === undefined || second < low || second > high) return false;
    for (let k = 2; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < 0x80 || c > 0xbf) return false;
    }
    i += need + 1;
  }
  return true;
}
