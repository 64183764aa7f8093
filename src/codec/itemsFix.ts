/**
 * The "items fix" for array schemas in tool input schemas (docs/results.md#results-items-fix, quirk
 * `normalize_array_items`). The Copilot extension throws on an array node without a usable
 * `items`, so such a node gets `items: {}`. Pure: the input is never changed; unchanged
 * subtrees are shared with the input.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject, JsonValue } from '../protocol/jsonrpc.js';
import { copy, setMember } from './objects.js';

/** Nodes deeper than this many levels below the root are left as they are (docs/results.md#results-items-fix). */
export const ITEMS_FIX_MAX_DEPTH = 64;

/** Keywords with one subschema. */
const SINGLE = ['additionalProperties', 'not', 'if', 'then', 'else', 'contains'] as const;
/** Keywords with a map of subschemas. */
const MAPS = [
  'properties',
  'patternProperties',
  'dependencies',
  'dependentSchemas',
  '$defs',
  'definitions',
] as const;
/** Keywords with an array of subschemas. */
const LISTS = ['anyOf', 'allOf', 'oneOf', 'prefixItems'] as const;

/** Escapes one JSON pointer token (RFC 6901 §4): `~` → `~0`, `/` → `~1`. */
export const escapePointerToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Fixes every array node of `schema` reachable through schema keywords (never through data
 * keywords such as `default`, `const`, `enum`, `examples`). `onFixed` receives the JSON
 * pointer of each fixed node, in document order. Idempotent.
 */
export function fixArrayItems(schema: JsonValue, onFixed?: (pointer: string) => void): JsonValue {
  return visit(schema, '', 0, onFixed);
}

function visit(
  node: JsonValue,
  pointer: string,
  depth: number,
  onFixed?: (pointer: string) => void,
): JsonValue {
  // The root is level 0 and nodes down to level 64 are visited; deeper ones stay as they are
  // (an 80-level `not` chain stays intact and tools/list still succeeds).
  if (!isObject(node) || depth > ITEMS_FIX_MAX_DEPTH) return node;
  let out: JsonObject | undefined;
  const set = (key: string, value: JsonValue): void => {
    out ??= copy(node);
    out[key] = value;
  };

  if (node['type'] === 'array' && needsItems(node)) {
    set('items', {});
    // items: false closed the tuple after prefixItems; maxItems keeps that meaning.
    if (node['items'] === false && !Object.hasOwn(node, 'maxItems')) {
      const prefix = node['prefixItems'];
      set('maxItems', Array.isArray(prefix) ? prefix.length : 0);
    }
    onFixed?.(pointer);
  }

  const child = (value: JsonValue, path: string): JsonValue => visit(value, path, depth + 1, onFixed);

  for (const key of SINGLE) {
    if (!Object.hasOwn(node, key)) continue;
    const value = node[key] as JsonValue;
    const fixed = child(value, `${pointer}/${escapePointerToken(key)}`);
    if (fixed !== value) set(key, fixed);
  }
  const items = (out ?? node)['items'];
  if (items !== undefined) {
    const fixed = Array.isArray(items)
      ? childList(items, `${pointer}/items`, child)
      : child(items, `${pointer}/items`);
    if (fixed !== items) set('items', fixed);
  }
  for (const key of MAPS) {
    const map = node[key];
    if (!isObject(map)) continue;
    let fixedMap: JsonObject | undefined;
    for (const [name, value] of Object.entries(map)) {
      const fixed = child(value, `${pointer}/${key}/${escapePointerToken(name)}`);
      if (fixed !== value) {
        fixedMap ??= copy(map);
        setMember(fixedMap, name, fixed);
      }
    }
    if (fixedMap !== undefined) set(key, fixedMap);
  }
  for (const key of LISTS) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    const fixed = childList(list, `${pointer}/${escapePointerToken(key)}`, child);
    if (fixed !== list) set(key, fixed);
  }
  return out ?? node;
}

function childList(
  list: JsonValue[],
  pointer: string,
  child: (value: JsonValue, path: string) => JsonValue,
): JsonValue[] {
  let out: JsonValue[] | undefined;
  list.forEach((value, index) => {
    const fixed = child(value, `${pointer}/${index}`);
    if (fixed !== value) {
      out ??= [...list];
      out[index] = fixed;
    }
  });
  return out ?? list;
}

/** Missing, or falsy in JavaScript: null, false, 0, -0, "" (docs/results.md#results-items-fix). */
const needsItems = (node: JsonObject): boolean => !node['items'];
