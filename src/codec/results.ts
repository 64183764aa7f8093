/**
 * Upstream results to client results (docs/results.md#results-shape–docs/results.md#results-output-schema). `classifyResult`
 * decides what a result is; `shapeResult` turns a complete result into a 2025-11-25 result.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject, JsonValue } from '../protocol/jsonrpc.js';
import { keepDataIconsOfBlock, keepDataIconsOfItems } from './icons.js';
import { META_SERVER_INFO } from '../protocol/metaKey.js';
import { isEmpty, omit } from './objects.js';
import { shapeTool, shapeToolCall } from './toolResults.js';
import type { ToolQuirks } from './toolResults.js';

export type Classified =
  | { readonly kind: 'complete'; readonly result: JsonObject }
  | { readonly kind: 'input_required'; readonly result: JsonObject }
  | { readonly kind: 'invalid'; readonly detail: string };

/** The methods that may answer with an input request (docs/input-rounds.md#input-which-requests). */
const INPUT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * `resultType` absent or `"complete"`: complete. `"input_required"`: an MRTR round, valid only
 * for tools/call, prompts/get and resources/read. Anything else, or a result that is not an
 * object, is not valid (-32603 `invalid_response`, docs/results.md#results-shape).
 */
export function classifyResult(method: string, result: unknown): Classified {
  if (!isObject(result)) return { kind: 'invalid', detail: `${method}: the result is not an object` };
  const type = result['resultType'];
  if (type === undefined || type === 'complete') return { kind: 'complete', result };
  if (type === 'input_required') {
    return INPUT_METHODS.has(method)
      ? { kind: 'input_required', result }
      : { kind: 'invalid', detail: `${method}: resultType 'input_required' is not allowed for this method` };
  }
  return { kind: 'invalid', detail: `${method}: unknown resultType ${JSON.stringify(type)}` };
}

/** Settings of shapeResult. */
export interface ShapeOptions {
  /** True for an HTTP upstream: only `data:` icons pass (docs/results.md#results-icons). */
  readonly remote: boolean;
  /** Called once per items fix, for the info log line of docs/results.md#results-items-fix. */
  readonly onItemsFixed?: (tool: string, pointer: string) => void;
  /** The client's quirks (docs/architecture.md#architecture-profile); default: both on, the VS Code profile. */
  readonly quirks?: ToolQuirks;
}

/** Members of 2026-07-28 results that 2025-11-25 does not have. */
const MODERN_MEMBERS: ReadonlySet<string> = new Set(['resultType', 'ttlMs', 'cacheScope']);

/** The list methods and the member that holds their items. */
const LIST_MEMBER: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

/** Required members of other results: decoding fails upstream without them. */
const REQUIRED_ARRAY: Readonly<Record<string, string>> = {
  'prompts/get': 'messages',
  'resources/read': 'contents',
};

/**
 * Shapes a complete result for the client, or says why it is not valid. Methods without
 * special rules only lose the 2026-07-28 members.
 */
export function shapeResult(
  method: string,
  result: JsonObject,
  opts: ShapeOptions,
): JsonObject | { readonly invalid: string } {
  const base = stripModern(result);
  const listMember = LIST_MEMBER[method];
  if (listMember !== undefined) return shapeList(method, base, listMember, opts);
  const required = REQUIRED_ARRAY[method];
  if (required !== undefined && !Array.isArray(base[required])) {
    return { invalid: `${method}: the result has no ${required} array` };
  }
  switch (method) {
    case 'tools/call':
      return shapeToolCall(base, opts.remote);
    case 'prompts/get':
      return opts.remote
        ? { ...base, messages: (base['messages'] as JsonValue[]).map(keepMessageIcons) }
        : base;
    case 'completion/complete':
      return isObject(base['completion'])
        ? base
        : { invalid: `${method}: the result has no completion object` };
    default:
      return base;
  }
}

/**
 * Removes `resultType`, `ttlMs`, `cacheScope` and `_meta["io.modelcontextprotocol/serverInfo"]`;
 * other `_meta` keys stay, an emptied (or non-object) `_meta` goes.
 */
function stripModern(result: JsonObject): JsonObject {
  // A result without anything to remove passes unchanged: no copy.
  if (!hasModernMember(result)) return result;
  const out = omit(result, MODERN_MEMBERS);
  if (!Object.hasOwn(out, '_meta')) return out;
  const meta = out['_meta'];
  const kept = isObject(meta) ? omit(meta, [META_SERVER_INFO]) : {};
  if (isEmpty(kept)) return omit(out, ['_meta']);
  out['_meta'] = kept;
  return out;
}

/** True when `stripModern` would change the result. */
function hasModernMember(result: JsonObject): boolean {
  for (const key of MODERN_MEMBERS) if (Object.hasOwn(result, key)) return true;
  if (!Object.hasOwn(result, '_meta')) return false;
  const meta = result['_meta'];
  return !isObject(meta) || isEmpty(meta) || Object.hasOwn(meta, META_SERVER_INFO);
}

function shapeList(
  method: string,
  result: JsonObject,
  member: string,
  opts: ShapeOptions,
): JsonObject | { readonly invalid: string } {
  const items = result[member];
  if (!Array.isArray(items)) return { invalid: `${method}: the result has no ${member} array` };
  if (!items.every(isObject)) return { invalid: `${method}: an item of ${member} is not an object` };
  let shaped: JsonValue[] = items;
  if (method === 'tools/list') shaped = items.map((tool) => shapeTool(tool, opts.onItemsFixed, opts.quirks));
  if (opts.remote) shaped = keepDataIconsOfItems(shaped);
  const out: JsonObject = { ...result, [member]: shaped };
  // VS Code keeps paging while nextCursor is present, also when it is null (docs/results.md#results-shape).
  if (Object.hasOwn(out, 'nextCursor') && typeof out['nextCursor'] !== 'string') delete out['nextCursor'];
  return out;
}

/** A prompt message with `data:` icons only in its resource links (one block or a list). */
function keepMessageIcons(message: JsonValue): JsonValue {
  if (!isObject(message) || !Object.hasOwn(message, 'content')) return message;
  const content = message['content'] as JsonValue;
  const shaped = Array.isArray(content) ? content.map(keepDataIconsOfBlock) : keepDataIconsOfBlock(content);
  return { ...message, content: shaped };
}
