/**
 * The error describers: how a failure appears in a log line or a detail, in one place. Each says
 * a code and a name, never a message or a frame content, which may hold a token, a header value or
 * the upstream URL (SECURITY.md). Used by every layer that logs a failure (src/bridge,
 * src/codec/listenEnd.ts, src/edges, src/oauth, src/node, src/embed).
 */
import { isBridgeError } from '../protocol/bridgeError.js';

/** The cause of a failure for a log line: its code and name (never a frame content). */
export function causeOf(error: unknown): string {
  if (isBridgeError(error)) return error.detail === undefined ? error.code : `${error.code}: ${error.detail}`;
  if (!(error instanceof Error)) return typeof error;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? `${error.name} ${code}` : error.name;
}

/** The name of a thrown value: a BridgeError's code, an Error's name, else its type. */
export function errorName(error: unknown): string {
  if (isBridgeError(error)) return error.code;
  return error instanceof Error ? error.name : typeof error;
}

/**
 * A failure as the listen stream and `initialize` log it: a BridgeError's code with its detail
 * and HTTP status (`transport_failed (tools/list, HTTP status 502)`); anything else is a failure
 * inside the bridge.
 */
export function failureText(error: unknown): string {
  if (!isBridgeError(error)) return 'internal failure';
  const status = error.httpStatus === undefined ? undefined : `HTTP status ${error.httpStatus}`;
  const details = [error.detail, status].filter((part) => part !== undefined);
  return details.length === 0 ? error.code : `${error.code} (${details.join(', ')})`;
}
