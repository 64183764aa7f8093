/**
 * The `_meta` and params of requests that go upstream (docs/requests.md#requests-meta,
 * docs/requests.md#requests-meta-passthrough). Pure.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject, JsonValue } from '../protocol/jsonrpc.js';
import { isReservedPrefix, isSpecReservedPrefix, parseMetaKey } from '../protocol/metaKey.js';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
} from '../protocol/metaKey.js';
import { omit, setMember } from './objects.js';
import type { RetryExtras } from './input/types.js';
import { REFERENCE_PASSTHROUGH } from '../protocol/metaPassthrough.js';
import type { MetaPassthrough } from '../protocol/metaPassthrough.js';

/** The revision spoken upstream. */
export const PROTOCOL_VERSION = '2026-07-28';
/** The revision spoken to the client (VS Code). */
export const LEGACY_PROTOCOL_VERSION = '2025-11-25';

export interface UpstreamMetaContext {
  /** The client's `clientInfo` from `initialize`. */
  readonly clientInfo: JsonObject;
  /** The capabilities declared upstream (toUpstreamClientCapabilities). */
  readonly clientCapabilities: JsonObject;
  /** The level of the last `logging/setLevel`; absent when the client never set one. */
  readonly logLevel?: string;
}

/** Whether one key of a client's `_meta` with its value travels upstream. */
export type MetaRule = (key: string, value: unknown) => boolean;

/** W3C trace keys (docs/requests.md#requests-meta-trace): they pass only as strings. */
const TRACE_KEYS: ReadonlySet<string> = new Set(['traceparent', 'tracestate', 'baggage']);
/** The decisions a rule remembers, by key: clients send the same few keys on every request. */
const MAX_KNOWN_KEYS = 256;

/** The key half of the rule, without the memo. */
function keyPasses(passthrough: MetaPassthrough, key: string): boolean {
  if (key === 'progressToken') return false;
  const parsed = parseMetaKey(key);
  if (parsed === undefined) return false;
  if (passthrough.keys.includes(key) || passthrough.prefixes.some((prefix) => key.startsWith(prefix)))
    return !isReservedPrefix(parsed);
  return passthrough.unreserved && !isSpecReservedPrefix(parsed);
}

/**
 * The rule of `passthrough`, made once per connection. A key that fails is dropped silently and
 * never fails the request (docs/requests.md#requests-meta).
 */
export function metaRule(passthrough: MetaPassthrough): MetaRule {
  const known = new Map<string, boolean>();
  return (key, value) => {
    let passes = known.get(key);
    if (passes === undefined) {
      passes = keyPasses(passthrough, key);
      if (known.size < MAX_KNOWN_KEYS) known.set(key, passes);
    }
    return passes && (typeof value === 'string' || !TRACE_KEYS.has(key));
  };
}

const referenceRule = metaRule(REFERENCE_PASSTHROUGH);

/**
 * The `_meta` of one upstream request: the pass-through keys of the client's `_meta` (by
 * `passes`, the reference rule by default), then the protocol keys, which win. `progressToken` is
 * not set here: the connection sets it to the upstream request id (docs/README.md#easy-to-miss
 * item 8).
 */
export function buildUpstreamMeta(
  ctx: UpstreamMetaContext,
  clientMeta: unknown,
  passes: MetaRule = referenceRule,
): JsonObject {
  const meta: JsonObject = {};
  if (isObject(clientMeta)) {
    // for…in, not Object.entries: no array of pairs per request.
    for (const key in clientMeta) {
      if (!Object.hasOwn(clientMeta, key)) continue;
      const value = clientMeta[key];
      if (passes(key, value)) setMember(meta, key, value as JsonValue);
    }
  }
  meta[META_PROTOCOL_VERSION] = PROTOCOL_VERSION;
  meta[META_CLIENT_INFO] = ctx.clientInfo;
  meta[META_CLIENT_CAPABILITIES] = ctx.clientCapabilities;
  // A logLevel in the client's own _meta never overrides the stored level (docs/requests.md#requests-meta): the
  // pass-through rule above already dropped every io.modelcontextprotocol/* key.
  if (ctx.logLevel !== undefined) meta[META_LOG_LEVEL] = ctx.logLevel;
  return meta;
}

const FORWARD_DROPPED: ReadonlySet<string> = new Set(['task', '_meta']);

/** The client's params minus `task` (legacy tasks, docs/requests.md#requests-tasks) and `_meta`. */
export function forwardParams(params: JsonObject | undefined): JsonObject {
  return params === undefined ? {} : omit(params, FORWARD_DROPPED);
}

/** True for params of a 2026-07-28 request (docs/lifecycle.md#lifecycle-before-ready). */
export function isModernRequest(params: unknown): boolean {
  if (!isObject(params)) return false;
  const meta = params['_meta'];
  return isObject(meta) && Object.hasOwn(meta, META_PROTOCOL_VERSION);
}

/**
 * The params of an upstream round (docs/requests.md#requests-deadlines): the client's params minus
 * `task` and `_meta` (forwardParams), the retry extras of the round before (none for round 1)
 * and `meta` as `_meta`. `meta` is the caller's object (ForwardRequestDeps.meta may return the
 * same object every time) and goes in as it is: the connection copies it when it sets
 * `_meta.progressToken` (src/bridge/rpcExchanges.ts), so no operator writes into an object a
 * caller gave it (docs/architecture.md).
 */
export function roundParams(
  params: JsonObject | undefined,
  extras: RetryExtras,
  meta: JsonObject,
): JsonObject {
  const out = params === undefined ? {} : omit(params, FORWARD_DROPPED);
  if (extras.inputResponses !== undefined) out['inputResponses'] = extras.inputResponses;
  if (extras.requestState !== undefined) out['requestState'] = extras.requestState;
  out['_meta'] = meta;
  return out;
}
