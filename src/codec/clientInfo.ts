/**
 * The `io.modelcontextprotocol/clientInfo` sent upstream, from the client's `initialize`
 * `clientInfo` (docs/requests.md#requests-meta; the `Implementation` of both revisions). Lenient on
 * shape: a member of the wrong type is left out, never a failure. Pure.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject, JsonValue } from '../protocol/jsonrpc.js';
import { isDataIcon } from './icons.js';

/** The display members of `Implementation` that pass as strings. */
const TEXT_MEMBERS = ['title', 'description', 'websiteUrl'] as const;
/**
 * The icons travel in the `_meta` of every upstream request: at most this many, each with a `src`
 * of at most MAX_ICON_SRC characters (a `data:` URI holds the whole image).
 */
const MAX_ICONS = 8;
const MAX_ICON_SRC = 8_192;

/**
 * `name` (default `unknown-client`) and `version` (default `0.0.0`); with `full`, also `title`,
 * `description`, `websiteUrl` (strings) and `icons` (shapeIcons). For a remote upstream only
 * `data:` icons pass: a `file:` or `http:` icon of the client can name a file or a host of the
 * user's machine (the rule of icons in results, src/codec/icons.ts).
 */
export function upstreamClientInfo(info: unknown, full: boolean, remote: boolean): JsonObject {
  const source = isObject(info) ? info : {};
  const name =
    typeof source['name'] === 'string' && source['name'] !== '' ? source['name'] : 'unknown-client';
  const version = typeof source['version'] === 'string' ? source['version'] : '0.0.0';
  const out: JsonObject = { name, version };
  if (!full) return out;
  for (const member of TEXT_MEMBERS) {
    const value = source[member];
    if (typeof value === 'string') out[member] = value;
  }
  const icons = shapeIcons(source['icons'], remote);
  if (icons.length > 0) out['icons'] = icons;
  return out;
}

/**
 * The `Icon`s of `icons` with their schema members only: `src` (a string, required), `mimeType`,
 * `sizes` (strings), `theme` (`light` or `dark`); an icon without a valid `src` is left out.
 */
function shapeIcons(icons: unknown, remote: boolean): JsonObject[] {
  if (!Array.isArray(icons)) return [];
  const out: JsonObject[] = [];
  for (const icon of icons as JsonValue[]) {
    if (out.length === MAX_ICONS) break;
    if (!isObject(icon)) continue;
    const src = icon['src'];
    if (typeof src !== 'string' || src === '' || src.length > MAX_ICON_SRC) continue;
    if (remote && !isDataIcon(icon)) continue;
    const shaped: JsonObject = { src };
    const { mimeType, sizes, theme } = icon;
    if (typeof mimeType === 'string') shaped['mimeType'] = mimeType;
    if (Array.isArray(sizes) && sizes.every((size) => typeof size === 'string')) shaped['sizes'] = sizes;
    if (theme === 'light' || theme === 'dark') shaped['theme'] = theme;
    out.push(shaped);
  }
  return out;
}
