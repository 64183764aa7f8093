/**
 * The MCP revisions the bridge speaks towards its client (docs/revisions.md). The client asks for
 * one in `initialize`; a revision the bridge knows is answered with itself, anything else with
 * the newest. The session then speaks that revision: its frames are shaped by downgrade.ts. Its
 * capabilities are the ones it declared, whatever its revision (docs/revisions.md#revisions-declared).
 * Revisions are dates, so they compare as strings.
 */
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
