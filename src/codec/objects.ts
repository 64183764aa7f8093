/**
 * Small copy helpers for parsed JSON. `JSON.parse` makes `"__proto__"` an own member; a plain
 * assignment of that key would change the prototype of the copy instead and lose the member,
 * so every copy in the codec goes through `setMember`.
 */
import type { JsonObject, JsonValue } from '../protocol/jsonrpc.js';

/** Sets an own, enumerable member, also for the key `__proto__`. */
export function setMember(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/**
 * A shallow copy of `source` without the members in `drop`. A `for…in` over own members, not
 * `Object.entries`: no array of pairs per copy (issue 13, deliverable 3). Parsed JSON has no
 * enumerable inherited members; `Object.hasOwn` keeps it exact for any other object.
 */
export function omit(source: JsonObject, drop: ReadonlySet<string> | readonly string[]): JsonObject {
  const dropped = (key: string): boolean =>
    drop instanceof Set ? drop.has(key) : (drop as readonly string[]).includes(key);
  const out: JsonObject = {};
  for (const key in source) {
    if (Object.hasOwn(source, key) && !dropped(key)) setMember(out, key, source[key] as JsonValue);
  }
  return out;
}

/** A shallow copy of `source`. */
export const copy = (source: JsonObject): JsonObject => omit(source, []);

/** True when the object has no own members. */
export const isEmpty = (value: JsonObject): boolean => Object.keys(value).length === 0;
