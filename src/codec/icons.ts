/**
 * The icon rule for a remote (HTTP) upstream (docs/results.md#results-icons): only `data:` icons
 * pass. VS Code would fetch an `https:` icon of a stdio server never, and a `file:` icon of a
 * remote server would name a file on the user's machine (docs/results.md#results-icons).
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject, JsonValue } from '../protocol/jsonrpc.js';
import { omit } from './objects.js';

/** True for an icon whose `src` is a `data:` URI (scheme case-insensitive, RFC 3986 §3.1). */
export const isDataIcon = (icon: JsonValue): boolean =>
  isObject(icon) && typeof icon['src'] === 'string' && icon['src'].slice(0, 5).toLowerCase() === 'data:';

/**
 * `node` with its `icons` array reduced to `data:` icons; an array that becomes empty (or an
 * `icons` member that is not an array) is removed. Returns `node` itself when nothing changes.
 */
export function keepDataIcons(node: JsonObject): JsonObject {
  if (!Object.hasOwn(node, 'icons')) return node;
  const icons = node['icons'];
  const kept = Array.isArray(icons) ? icons.filter(isDataIcon) : [];
  if (Array.isArray(icons) && kept.length === icons.length && kept.length > 0) return node;
  const out = omit(node, ['icons']);
  if (kept.length > 0) out['icons'] = kept;
  return out;
}

/** Applies `keepDataIcons` to each object of a list (items of the list results). */
export const keepDataIconsOfItems = (items: readonly JsonValue[]): JsonValue[] =>
  items.map((item) => (isObject(item) ? keepDataIcons(item) : item));

/**
 * Applies `keepDataIcons` to `resource_link` blocks, the only content blocks with icons
 * (tools/call content, prompts/get message content).
 */
export const keepDataIconsOfBlock = (block: JsonValue): JsonValue =>
  isObject(block) && block['type'] === 'resource_link' ? keepDataIcons(block) : block;
