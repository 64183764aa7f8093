/**
 * The `_meta` pass-through of a profile (reference-behaviors.md §1.2, §3.3). The bridge itself
 * passes `traceparent`, `tracestate` and valid `vscode.*` keys of a client request's `_meta`
 * upstream (src/codec/meta.ts); a profile narrows that before the bridge sees the request: a key
 * the bridge would pass but the profile does not list is removed. So the keys that travel are
 * those both allow; every other `_meta` key (`progressToken` among them) is left to the bridge.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';
import type { MetaPassthrough } from './profile.js';

/** The keys the bridge's own rule may pass upstream (src/codec/meta.ts). */
const bridgePasses = (key: string): boolean =>
  key === 'traceparent' || key === 'tracestate' || key.startsWith('vscode.');

const profilePasses = (passthrough: MetaPassthrough, key: string): boolean =>
  passthrough.keys.includes(key) || passthrough.prefixes.some((prefix) => key.startsWith(prefix));

/** Removes from a client request's `_meta` the pass-through keys the profile does not list. */
export function narrowClientMeta(passthrough: MetaPassthrough): (inbound: Inbound) => Inbound {
  return (inbound) => {
    if (inbound.kind !== 'frame' || !('method' in inbound.frame)) return inbound;
    const params = inbound.frame.params;
    const meta = params?.['_meta'];
    if (params === undefined || !isObject(meta)) return inbound;
    const dropped = Object.keys(meta).filter((key) => bridgePasses(key) && !profilePasses(passthrough, key));
    if (dropped.length === 0) return inbound;
    const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !dropped.includes(key)));
    return { ...inbound, frame: { ...inbound.frame, params: { ...params, _meta: kept } } };
  };
}
