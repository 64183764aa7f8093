/**
 * The line of an upstream request, exactly `JSON.stringify(frame)` and a newline, made faster for
 * the `_meta` of 2026-07-28 requests: every request carries the same client info and
 * capabilities objects in `_meta`, and on Node 20 `JSON.stringify` spends about 150 ns per nested
 * object, so serialising them was a tenth of the bridge's CPU per forwarded call. Those objects are
 * made once per connection by frozenJson, deep-frozen, and carry their own text (a property under
 * a symbol, which JSON.stringify, Object.keys and a spread never see), so the text travels with
 * the value, not in a table keyed by it; everything else is serialised as before.
 */
import type { Frame, JsonObject, JsonValue } from '../protocol/jsonrpc.js';
import { isRequest } from '../protocol/jsonrpc.js';

/** The text a value of frozenJson carries (not enumerable: JSON.stringify and copies skip it). */
const JSON_TEXT: unique symbol = Symbol('the JSON text of a frozenJson value');

/** A value of frozenJson, as valueText reads it. */
interface WithText {
  readonly [JSON_TEXT]?: string;
}

/** The text of member names seen in `_meta` (a few fixed ones; bounded for any others). */
const keyTexts = new Map<string, string>();
const MAX_KEY_TEXTS = 256;

function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (keyTexts.size < MAX_KEY_TEXTS) keyTexts.set(key, text);
  }
  return text;
}

/**
 * Stands for `_meta` while the rest of the params is serialised (see paramsText). Any text
 * without escapes does: only the params' own `_meta` member can end their text with
 * `"_meta":"…"}` (a quote inside a string value is always escaped, and a nested member ends
 * with two braces).
 */
const PLACEHOLDER = 'the _meta of this request';
/** The end of the params' text when `_meta` is their last member. */
const PLACEHOLDER_END = `"_meta":${JSON.stringify(PLACEHOLDER)}}`;

/**
 * A deep-frozen copy of a JSON value, made once (the client context of a connection): it carries
 * its text, which requestLine then writes for all requests. Its text can never change, as the
 * copy is frozen all the way down.
 */
export function frozenJson<T extends JsonValue>(value: T): T {
  const copy = JSON.parse(JSON.stringify(value)) as T;
  if (typeof copy === 'object' && copy !== null) {
    Object.defineProperty(copy, JSON_TEXT, { value: JSON.stringify(copy) });
  }
  return deepFreeze(copy);
}

function deepFreeze<T extends JsonValue>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  for (const member of Object.values(value)) deepFreeze(member);
  return Object.freeze(value);
}

/** The text of one member value as JSON.stringify writes it inside an object; undefined: left out. */
function valueText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  return (value as WithText)[JSON_TEXT] ?? JSON.stringify(value);
}

/** A plain object without toJSON anywhere JSON.stringify would call it on the members' level. */
function isPlainObject(value: unknown): value is JsonObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/** The text of `_meta`, member by member, with the remembered text of its frozen members. */
function metaText(meta: JsonObject): string | undefined {
  let text = '{';
  for (const key in meta) {
    if (!Object.hasOwn(meta, key)) continue;
    const value: unknown = meta[key];
    // A member's own toJSON gets its key from JSON.stringify: left to JSON.stringify.
    if (
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { toJSON?: unknown }).toJSON === 'function'
    )
      return undefined;
    const member = valueText(value);
    if (member === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${keyText(key)}:${member}`;
  }
  return `${text}}`;
}

/**
 * The text of params whose last member is a plain `_meta`: the rest is serialised with a
 * placeholder in its place, then the placeholder's text is replaced by metaText. The params are
 * the caller's own objects (rpcConnection sends a fresh object or its own copy); the placeholder
 * is put back before returning. A params object whose `_meta` is not its last member is
 * serialised whole.
 */
function paramsText(params: JsonObject, meta: JsonObject): string | undefined {
  const inner = metaText(meta);
  if (inner === undefined) return undefined;
  params['_meta'] = PLACEHOLDER;
  let text: string;
  try {
    text = JSON.stringify(params);
  } finally {
    params['_meta'] = meta;
  }
  if (!text.endsWith(PLACEHOLDER_END)) return undefined;
  return `${text.slice(0, text.length - PLACEHOLDER_END.length)}"_meta":${inner}}`;
}

/**
 * The line of the request `{ jsonrpc, id, method, params }`: the text of `JSON.stringify` of that
 * frame and a newline, for any params. `params` must be an object of the caller's own (its
 * `_meta` member is swapped for a moment; see paramsText).
 */
export function requestLine(id: number, method: string, params: JsonObject): string {
  const meta = params['_meta'];
  const fast =
    isPlainObject(params) && !Object.isFrozen(params) && isPlainObject(meta) && Number.isSafeInteger(id)
      ? paramsText(params, meta)
      : undefined;
  if (fast === undefined) return `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;
  return `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${fast}}\n`;
}

/**
 * The line of any frame: the text of `JSON.stringify` and a newline, a request with numeric id
 * made by requestLine (its `_meta` text is mostly made once, see metaText). The frame must be
 * the caller's own, as for requestLine: a transport of text (src/edges/childProcess.ts) gets the
 * frames of rpcConnection, made for one send.
 */
export function frameLine(frame: Frame): string {
  return isRequest(frame) && typeof frame.id === 'number' && frame.params !== undefined
    ? requestLine(frame.id, frame.method, frame.params)
    : `${JSON.stringify(frame)}\n`;
}
