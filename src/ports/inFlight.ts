/**
 * Which client messages take a place of an in-flight limit (docs/requests.md#requests-in-flight):
 * requests, except `ping`, `logging/setLevel` and `server/discover`, which are answered at once
 * and so are never refused. Notifications and responses take none. The bridge's limit of one
 * connection and the HTTP front end's limit of all its sessions both use this one rule.
 */
import type { Inbound } from '../protocol/parseLine.js';

/** The requests that never take a place. */
const UNCOUNTED: ReadonlySet<string> = new Set(['ping', 'logging/setLevel', 'server/discover']);

/** Whether `inbound` takes a place of an in-flight limit. */
export function takesInFlightPlace(inbound: Inbound): boolean {
  return (
    inbound.kind === 'frame' &&
    'method' in inbound.frame &&
    'id' in inbound.frame &&
    !UNCOUNTED.has(inbound.frame.method)
  );
}
