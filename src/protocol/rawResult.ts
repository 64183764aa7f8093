/**
 * A large result held once. The line of a large response keeps its
 * bytes next to its parsed `result`; a shaped copy of that result carries them on; the encoder
 * then writes the members that shaping left unchanged from those bytes, in pieces that are never
 * joined, instead of serialising the parsed value again. The parsed value can be collected as
 * soon as the line is encoded; the raw bytes are the one copy that waits for the write.
 *
 * Small lines pay nothing: below RAW_RESULT_MIN_BYTES nothing is scanned or remembered. The
 * bytes travel with the result object itself, as a property under a symbol that is not
 * enumerable (JSON.stringify, Object.keys and a spread never see it): no table keyed by the
 * object, and they live exactly as long as the result that carries them.
 */
import { isObject } from './jsonrpc.js';
import type { Frame, JsonObject } from './jsonrpc.js';
import { resultMemberSpans } from './memberSpans.js';
import type { MemberSpan } from './memberSpans.js';

/** Lines from this size on keep their bytes for the result's members (1 MiB). */
export const RAW_RESULT_MIN_BYTES = 1024 * 1024;

/** A line for the writer: one string, or pieces written in order without being joined. */
export type LinePieces = readonly (string | Uint8Array)[];

interface RawResult {
  readonly bytes: Uint8Array;
  readonly spans: ReadonlyMap<string, MemberSpan>;
  /** The parsed result the bytes belong to: a member passes raw only while it is still this one's. */
  readonly original: JsonObject;
}

/** The key of the raw bytes on a result object. */
const RAW: unique symbol = Symbol('the raw bytes of a large result');

/** A result object as rawResultLine reads it. */
interface WithRaw {
  readonly [RAW]?: RawResult;
}

/** Puts `raw` on `result`, where nothing else sees it; a frozen result just goes without. */
function attach(result: JsonObject, raw: RawResult): void {
  if (Object.isExtensible(result)) Object.defineProperty(result, RAW, { value: raw, configurable: true });
}

const rawOf = (result: JsonObject): RawResult | undefined => (result as WithRaw)[RAW];

/**
 * Remembers the bytes of a parsed line whose frame is a response with a `result` object, when
 * the line is at least RAW_RESULT_MIN_BYTES long (`minBytes` is for tests of small results). A
 * line with a carriage return never passes raw (memberSpans.ts).
 */
export function rememberRawResult(
  frame: Frame,
  bytes: Uint8Array,
  known?: ReadonlyMap<string, MemberSpan> | null,
  minBytes = RAW_RESULT_MIN_BYTES,
): void {
  if (bytes.length < minBytes) return;
  if (!('result' in frame) || !isObject(frame.result)) return;
  if (known === null) return;
  const spans = known ?? resultMemberSpans(bytes);
  if (spans === undefined) return;
  attach(frame.result, { bytes, spans, original: frame.result });
}

/**
 * After shaping: the shaped result carries the bytes of the result it was made from. Returns
 * `shaped`, so a caller can wrap its return value.
 */
export function carryRawResult(original: JsonObject, shaped: JsonObject): JsonObject {
  if (shaped !== original) {
    const raw = rawOf(original);
    if (raw !== undefined) attach(shaped, raw);
  }
  return shaped;
}

/**
 * The line of a frame whose `result` has raw bytes, as pieces: the members of the frame and of
 * the result in their order (that of `JSON.stringify`), each unchanged member of the result as a
 * view of the upstream's bytes, each other member as `JSON.stringify` of its value. `undefined`
 * when the frame's result has no raw bytes (the caller writes `JSON.stringify` of the frame).
 */
export function rawResultLine(frame: Frame): LinePieces | undefined {
  if (!('result' in frame) || !isObject(frame.result)) return undefined;
  const result = frame.result;
  const raw = rawOf(result);
  if (raw === undefined) return undefined;
  const pieces: (string | Uint8Array)[] = [];
  let text = '{';
  let first = true;
  for (const key of Object.keys(frame)) {
    const value: unknown = (frame as unknown as Record<string, unknown>)[key];
    if (key !== 'result') {
      const json = JSON.stringify(value) as string | undefined;
      if (json === undefined) continue;
      text += `${first ? '' : ','}${JSON.stringify(key)}:${json}`;
      first = false;
      continue;
    }
    text += `${first ? '' : ','}${JSON.stringify(key)}:{`;
    first = false;
    let firstMember = true;
    for (const member of Object.keys(result)) {
      const memberValue = result[member];
      const span = raw.spans.get(member);
      if (
        span?.exact === true &&
        Object.hasOwn(raw.original, member) &&
        raw.original[member] === memberValue
      ) {
        // The member's bytes as the upstream wrote them: a view, not a copy.
        pieces.push(`${text}${firstMember ? '' : ','}`);
        pieces.push(raw.bytes.subarray(span.start, span.end));
        text = '';
      } else {
        const json = JSON.stringify(memberValue) as string | undefined;
        if (json === undefined) continue;
        text += `${firstMember ? '' : ','}${JSON.stringify(member)}:${json}`;
      }
      firstMember = false;
    }
    text += '}';
  }
  pieces.push(`${text}}\n`);
  return pieces;
}
