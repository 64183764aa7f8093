/**
 * The `-32022` UnsupportedProtocolVersion refusal of an upstream (docs/lifecycle.md#lifecycle-initialize
 * step 3, docs/errors.md#errors-upstream-codes): which versions it offers, and whether it is the
 * one case the bridge sends a request again for, a refusal that lists 2026-07-28 itself. Pure;
 * `operators/retryRefusedVersion.ts` runs the retry, initialize.ts names the offered versions.
 */
import { UNSUPPORTED_PROTOCOL_VERSION } from '../protocol/errors.js';
import type { ErrorFrame, ErrorObject, Frame } from '../protocol/jsonrpc.js';
import { isErrorResponse, isObject } from '../protocol/jsonrpc.js';
import { PROTOCOL_VERSION } from './meta.js';

/** At most this many versions of an upstream list reach a message; each one is checked for shape. */
const MAX_NAMED_VERSIONS = 8;
const VERSION_SHAPE = /^[0-9A-Za-z._-]{1,40}$/;

/**
 * The versions a `-32022` error offers (`data.supported`), or undefined for another error. Only
 * short version-like strings are kept: they go into a message for the client and a log line.
 */
export function offeredVersions(error: ErrorObject): string[] | undefined {
  if (error.code !== UNSUPPORTED_PROTOCOL_VERSION) return undefined;
  const data = isObject(error.data) ? error.data : {};
  const supported = Array.isArray(data['supported']) ? data['supported'] : [];
  return supported
    .filter((item): item is string => typeof item === 'string' && VERSION_SHAPE.test(item))
    .slice(0, MAX_NAMED_VERSIONS);
}

/**
 * A response `-32022` that lists 2026-07-28 among the supported versions: the bridge speaks no
 * other version, so this is the only refusal that sending the request again can change.
 */
export function refusedButSupported(frame: Frame): frame is ErrorFrame {
  return isErrorResponse(frame) && offeredVersions(frame.error)?.includes(PROTOCOL_VERSION) === true;
}
