/**
 * One line of input to one inbound value: a frame, a blank line, or a bad line with the cause
 * of its error response (docs/lines.md#lines-bad-line). A bad line is a value, never a throw:
 * the connection always stays open after bad lines.
 */
import { asFrame, isObject, isRequestId } from './jsonrpc.js';
import type { Frame, RequestId } from './jsonrpc.js';
import { scanJson } from './jsonScan.js';
import type { RawLine } from './lines.js';
import { isUtf8, parseLazily } from './lazyStrings.js';
import { resultMemberSpans } from './memberSpans.js';
import type { MemberSpan } from './memberSpans.js';
import { RAW_RESULT_MIN_BYTES, rememberRawResult } from './rawResult.js';
import { recoverId } from './recoverId.js';

/** Why a client line is not a message (the error table of docs/lines.md#lines-bad-line). */
export type BadLineCause = 'parse_error' | 'invalid_request_shape' | 'line_too_long' | 'too_deep';

/** One decoded client line: a frame, a blank line, or a bad line with its recovered id. */
export type Inbound =
  | { readonly kind: 'frame'; readonly frame: Frame }
  /** An empty line, or one of only spaces and tabs: skipped without a response. */
  | { readonly kind: 'blank' }
  | {
      readonly kind: 'bad';
      readonly id: RequestId | null;
      readonly cause: BadLineCause;
      readonly detail?: string;
    };

export interface ParseLimits {
  /** Deepest nesting of arrays and objects; the top-level value is level 1. */
  readonly maxDepth: number;
  /** Longest line in bytes (only used for the detail text of `line_too_long`). */
  readonly maxLineBytes: number;
}

/** The zig-sdk default nesting limit (docs/lines.md#lines-bad-line). */
export const DEFAULT_MAX_DEPTH = 64;

// `fatal`: invalid UTF-8 is a parse error (docs/lines.md#lines-bad-line). `ignoreBOM`: a byte order mark stays in the
// text, so JSON.parse rejects it as the strict JSON grammar does.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const bad = (id: RequestId | null, cause: BadLineCause, detail?: string): Inbound =>
  detail === undefined ? { kind: 'bad', id, cause } : { kind: 'bad', id, cause, detail };

/**
 * Classifies one line. Order of the checks: line length, blank, UTF-8, nesting depth, JSON
 * syntax (with lone surrogate escapes), JSON-RPC shape. Depth comes before the syntax so that
 * a deep line is refused without building it; a deep line with a later syntax error is
 * therefore `too_deep`, as in a streaming parser that stops at the first problem it meets.
 *
 * The byte scan runs only where it can find something (it was a tenth of the parse):
 * a line shorter than 2 × (maxDepth + 1) bytes that is valid JSON cannot nest deeper than
 * maxDepth (each level takes an opening and a closing byte), and a text without `\u` holds no
 * surrogate escape. Such a line is parsed at once; only when `JSON.parse` refuses it does the
 * scan decide between `too_deep` and `parse_error`, so the answers are those of the scan-first
 * order for every line.
 */
export function parseLine(line: RawLine, limits: ParseLimits): Inbound {
  if (line.kind === 'too_long') {
    return bad(recoverId(line.head, line.tail), 'line_too_long', `limit: ${limits.maxLineBytes} bytes`);
  }
  const { bytes } = line;
  if (isBlank(bytes)) return { kind: 'blank' };
  // A large line is checked without a text of the whole line (lazyStrings.ts): its UTF-8 is
  // checked by the decoding of its pieces, or by isUtf8 when it is too deep.
  const large = bytes.length >= RAW_RESULT_MIN_BYTES;
  let text = '';
  try {
    if (!large) text = decoder.decode(bytes);
  } catch {
    return bad(recoverId(bytes), 'parse_error');
  }
  let value: unknown;
  let spans: Map<string, MemberSpan> | undefined;
  if (!large && bytes.length < 2 * (limits.maxDepth + 1) && !text.includes('\\u')) {
    try {
      value = JSON.parse(text);
    } catch {
      const tooDeep = scanJson(bytes, limits.maxDepth).tooDeep;
      return tooDeep ? tooDeepLine(bytes, limits) : bad(recoverId(bytes), 'parse_error');
    }
  } else {
    const scan = scanJson(bytes, limits.maxDepth);
    // Bad UTF-8 comes before the depth (the order above); a large line's is checked here or below.
    if (scan.tooDeep)
      return large && !isUtf8(bytes) ? bad(recoverId(bytes), 'parse_error') : tooDeepLine(bytes, limits);
    // JSON.parse accepts "\ud800"; the reference does not (docs/lines.md#lines-bad-line).
    if (scan.loneSurrogate) return bad(recoverId(bytes), 'parse_error');
    // A large result: its long content strings are decoded only when read (lazyStrings.ts).
    spans = large ? resultMemberSpans(bytes) : undefined;
    value = spans === undefined ? undefined : parseLazily(bytes, spans);
    if (value === undefined) {
      try {
        value = JSON.parse(large ? decoder.decode(bytes) : text);
      } catch {
        return bad(recoverId(bytes), 'parse_error');
      }
    }
  }
  // A JSON-RPC batch (revision 2025-03-26 only) is refused as a whole (docs/revisions.md).
  if (Array.isArray(value)) return bad(null, 'invalid_request_shape', BATCH_DETAIL);
  const frame = asFrame(value);
  if (frame === undefined) return bad(parsedId(value), 'invalid_request_shape');
  // A large result keeps its bytes (rawResult.ts); a large line was scanned once above.
  rememberRawResult(frame, bytes, large ? (spans ?? null) : undefined);
  return { kind: 'frame', frame };
}

/** The detail of a refused batch. */
export const BATCH_DETAIL = 'a JSON-RPC batch: the bridge takes one message per line';

const tooDeepLine = (bytes: Uint8Array, limits: ParseLimits): Inbound =>
  bad(recoverId(bytes), 'too_deep', `limit: ${limits.maxDepth} levels`);

/**
 * The id of valid JSON that is not a valid message. The parsed value gives the same id as the
 * raw scan, also when the id comes after the first 256 bytes (the TS SDK writes it last), so a
 * broken answer to a bridge request `b-N` still finds its pending request (docs/lines.md#lines-bad-line).
 */
function parsedId(value: unknown): RequestId | null {
  if (!isObject(value)) return null;
  const id = value['id'];
  return isRequestId(id) ? id : null;
}

function isBlank(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x09) return false;
  }
  return true;
}
