/**
 * Capabilities across the two revisions (docs/lifecycle.md#lifecycle-initialize-result and docs/lifecycle.md#lifecycle-capabilities-upstream,
 * docs/lifecycle.md#lifecycle-capabilities-client). Both directions copy only members they know, and drop a member that
 * is not valid instead of failing: the bridge never declares what it cannot serve.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { setMember } from './objects.js';

/** The tasks extension has no counterpart on either side (docs/lifecycle.md#lifecycle-capabilities-upstream, docs/lifecycle.md#lifecycle-capabilities-client). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The client capabilities sent upstream in every request, from the client's `initialize`
 * capabilities (docs/lifecycle.md#lifecycle-capabilities-upstream):
 * - `elicitation`: only the declared modes (`form`, `url`); `{}` stays `{}` (form only in
 *   both revisions);
 * - `sampling`: `tools` and `context` only when the client declared them as objects;
 * - `roots`: `{}` (`listChanged` has no meaning in 2026-07-28), or `{ listChanged: true }` with
 *   `rootsListChanged` when the client declared it (a profile's MetaPassthrough);
 * - `experimental`, `extensions`: only object entries, never the tasks extension;
 * - never `tasks`, and no unknown members.
 */
export function toUpstreamClientCapabilities(legacy: unknown, rootsListChanged = false): JsonObject {
  const out: JsonObject = {};
  if (!isObject(legacy)) return out;
  const { elicitation, sampling, roots, experimental, extensions } = legacy;
  if (isObject(elicitation)) out['elicitation'] = pickObjects(elicitation, ['form', 'url']);
  if (isObject(sampling)) out['sampling'] = pickObjects(sampling, ['context', 'tools']);
  if (isObject(roots))
    out['roots'] = rootsListChanged && roots['listChanged'] === true ? { listChanged: true } : {};
  if (isObject(experimental)) out['experimental'] = objectEntries(experimental);
  if (isObject(extensions)) out['extensions'] = objectEntries(extensions, TASKS_EXTENSION);
  return out;
}

/**
 * The server capabilities of the `initialize` result, from the `server/discover` capabilities
 * (docs/lifecycle.md#lifecycle-initialize-result):
 * - `tools`, `prompts`, `resources` when declared; `listChanged` and `subscribe` only when the
 *   upstream value is literally `true` (a listen stream backs each flag, docs/notifications.md#notifications-listener);
 * - `logging` and `completions` as `{}` when declared as objects;
 * - `experimental` copied when an object; `extensions` copied without the tasks extension;
 * - never `tasks`.
 */
export function toLegacyServerCapabilities(modern: unknown): JsonObject {
  const out: JsonObject = {};
  if (!isObject(modern)) return out;
  const { tools, prompts, resources, logging, completions, experimental, extensions } = modern;
  if (isObject(tools)) out['tools'] = trueFlags(tools, ['listChanged']);
  if (isObject(prompts)) out['prompts'] = trueFlags(prompts, ['listChanged']);
  if (isObject(resources)) out['resources'] = trueFlags(resources, ['subscribe', 'listChanged']);
  if (isObject(logging)) out['logging'] = {};
  if (isObject(completions)) out['completions'] = {};
  if (isObject(experimental)) out['experimental'] = objectEntries(experimental);
  if (isObject(extensions)) out['extensions'] = objectEntries(extensions, TASKS_EXTENSION);
  return out;
}

/** The members of `names` whose values are objects. */
function pickObjects(source: JsonObject, names: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const name of names) {
    const value = source[name];
    if (isObject(value)) out[name] = value;
  }
  return out;
}

/** The flags of `names` that are literally `true`. */
function trueFlags(source: JsonObject, names: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const name of names) if (source[name] === true) out[name] = true;
  return out;
}

/** The entries of `source` with object values, minus the key `without`. */
function objectEntries(source: JsonObject, without?: string): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (key !== without && isObject(value)) setMember(out, key, value);
  }
  return out;
}
