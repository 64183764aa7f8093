/**
 * The MCP revisions the bridge speaks towards its client (docs/revisions.md). The client asks for
 * one in `initialize`; a revision the bridge knows is answered with itself, anything else with
 * the newest. The session then speaks that revision: its frames are shaped by downgrade.ts and
 * its capabilities reduced here. Revisions are dates, so they compare as strings.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { LEGACY_PROTOCOL_VERSION } from './meta.js';

/** A revision the bridge can speak to its client. */
export type ClientRevision = '2025-11-25' | '2025-06-18' | '2025-03-26' | '2024-11-05';

/** The newest client revision: its frames pass without any shaping. */
export const NEWEST_CLIENT_REVISION: ClientRevision = LEGACY_PROTOCOL_VERSION;

/** Every client revision, newest first. */
export const CLIENT_REVISIONS: readonly ClientRevision[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
];

/** The revision of a session: the requested one when the bridge knows it, else the newest. */
export function negotiateRevision(requested: unknown): ClientRevision {
  return CLIENT_REVISIONS.find((revision) => revision === requested) ?? NEWEST_CLIENT_REVISION;
}

/** True when `revision` has what `since` added (both are dates). */
export const hasSince = (revision: ClientRevision, since: ClientRevision): boolean => revision >= since;

/**
 * The client capabilities of `initialize`, reduced to the members the client's revision can
 * have (ClientCapabilities of its schema), so that neither the upstream nor the input rounds
 * count on what the client cannot do:
 * - `elicitation` from 2025-06-18 on; in 2025-06-18 it is `{}`, form mode only (URL mode and the
 *   `form`/`url` members are of 2025-11-25);
 * - `sampling` without `tools` and `context` before 2025-11-25;
 * - `tasks` and `extensions` only in 2025-11-25.
 * The newest revision gets `capabilities` itself.
 */
export function clientCapabilitiesFor(capabilities: JsonObject, revision: ClientRevision): JsonObject {
  if (revision === NEWEST_CLIENT_REVISION) return capabilities;
  const out: JsonObject = {};
  const { experimental, roots, sampling, elicitation } = capabilities;
  if (experimental !== undefined) out['experimental'] = experimental;
  if (roots !== undefined) out['roots'] = roots;
  if (isObject(sampling)) out['sampling'] = {};
  if (isObject(elicitation) && hasSince(revision, '2025-06-18') && declaresFormMode(elicitation)) {
    out['elicitation'] = {};
  }
  return out;
}

/** `{}` is form mode (2025-06-18 had no modes); `{url: {}}` alone is not. */
const declaresFormMode = (elicitation: JsonObject): boolean =>
  (elicitation['form'] === undefined && elicitation['url'] === undefined) || isObject(elicitation['form']);
