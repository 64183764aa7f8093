/**
 * What an answer to `server/discover` says about the revision of the upstream
 * (docs/doctor.md#doctor-checks): the same for a child's line and an HTTP body. A result names
 * what the server supports; an error (method not found, unsupported version) means it is not a
 * 2026-07-28 server, and the answer to an `initialize` of 2025-11-25 then tells which one it is.
 */
import { PROTOCOL_VERSION, buildUpstreamMeta } from '../../codec/meta.js';
import { result, serverText, type CheckResult } from './checks.js';

/** The client doctor names itself as. */
const clientInfo = (version: string) => ({ name: 'mcp-bridge-doctor', version });

/** The JSON-RPC request doctor sends first, with the `_meta` the bridge builds (src/codec/meta.ts). */
export const discoverRequest = (id: number, version: string): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'server/discover',
    params: {
      _meta: buildUpstreamMeta({ clientInfo: clientInfo(version), clientCapabilities: {} }, undefined),
    },
  });

/** The older revision's handshake, sent only after `server/discover` failed. */
export const legacyInitialize = (id: number, version: string): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: clientInfo(version),
    },
  });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The response of `id` in a parsed JSON value (an object, or a batch), if any. */
export function responseOf(value: unknown, id: number): Record<string, unknown> | undefined {
  const frames = Array.isArray(value) ? value : [value];
  return frames.find((frame): frame is Record<string, unknown> => isObject(frame) && frame['id'] === id);
}

export type DiscoverVerdict =
  | { readonly kind: 'modern'; readonly check: CheckResult }
  /** Not 2026-07-28: `why` says what the server answered. */
  | { readonly kind: 'other'; readonly why: string };

/** Reads the response to `server/discover`. */
export function readDiscover(response: Record<string, unknown>): DiscoverVerdict {
  const answer = response['result'];
  const error = response['error'];
  if (isObject(answer)) {
    const versions = Array.isArray(answer['supportedVersions'])
      ? answer['supportedVersions'].filter((v): v is string => typeof v === 'string')
      : undefined;
    if (versions !== undefined && !versions.includes(PROTOCOL_VERSION)) {
      return { kind: 'other', why: `server/discover lists ${versions.map(serverText).join(', ')}` };
    }
    const info = isObject(answer['serverInfo']) ? answer['serverInfo'] : {};
    const name = typeof info['name'] === 'string' ? ` (${serverText(info['name'])})` : '';
    return {
      kind: 'modern',
      check: result('revision', 'ok', `the server answers server/discover with ${PROTOCOL_VERSION}${name}`),
    };
  }
  const code = isObject(error) && typeof error['code'] === 'number' ? error['code'] : undefined;
  return {
    kind: 'other',
    why: `server/discover was refused${code === undefined ? '' : ` with the error ${code}`}`,
  };
}

/** The verdict once `server/discover` failed: `spoken` is the revision the `initialize` result named. */
export function olderRevision(why: string, spoken: string | undefined): CheckResult {
  const which =
    spoken === undefined
      ? `it does not speak ${PROTOCOL_VERSION}`
      : `it speaks ${serverText(spoken)} only, not ${PROTOCOL_VERSION}`;
  return result(
    'revision',
    'fail',
    `${which} (${why})`,
    `the bridge needs a ${PROTOCOL_VERSION} server; a client of ${spoken === undefined ? 'its revision' : serverText(spoken)} can use this server without the bridge`,
  );
}

/** The `protocolVersion` of an `initialize` response, if it has one. */
export function spokenVersion(response: Record<string, unknown> | undefined): string | undefined {
  const answer = response?.['result'];
  return isObject(answer) && typeof answer['protocolVersion'] === 'string'
    ? answer['protocolVersion']
    : undefined;
}
