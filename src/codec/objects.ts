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
 * `Object.entries`: no array of pairs per copy. Parsed JSON has no
 * enumerable inherited members; `Object.hasOwn` keeps it exact for any other object.
 */
export function omit(source: JsonObject, drop: ReadonlySet<string> | readonly string[]): JsonObject {
  const out: JsonObject = {};
  if (drop instanceof Set) {
    for (const key in source) {
      if (Object.hasOwn(source, key) && !drop.has(key)) setMember(out, key, source[key] as JsonValue);
    }
  } else {
    const list = drop as readonly string[];
    for (const key in source) {
      if (Object.hasOwn(source, key) && !list.includes(key)) setMember(out, key, source[key] as JsonValue);
    }
  }
  return out;
}

/**
 * A shallow copy of `source`, as `{ ...source }`. `Object.assign` is several times faster than a
 * spread of parsed JSON (the two spreads of an upstream request were a twentieth of the
 * bridge's time); it would set the prototype for a `__proto__` member, so such an object is
 * copied member by member.
 */
export function shallowCopy(source: JsonObject): JsonObject {
  return Object.hasOwn(source, '__proto__') ? omit(source, []) : Object.assign({}, source);
}

/** A shallow copy of `source`. */
export const copy = (source: JsonObject): JsonObject => omit(source, []);

/** True when the object has no own members. */
export const isEmpty = (value: JsonObject): boolean => Object.keys(value).length === 0;
