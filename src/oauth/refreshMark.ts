/**
 * A refresh token is sent at most once (SECURITY.md, sign-in requirement 4). A rotating refresh
 * token is spent by the server when it answers; if that answer never reaches the bridge (the
 * bridge was killed or stopped during the refresh, stdin ended, the holder of the sign-in lock
 * lost it), a second refresh with the same token is a reuse, and servers with reuse detection
 * revoke the whole grant (RFC 9700 §4.14.2). So, under the sign-in lock and right before the
 * refresh, the record is stored with the SHA-256 of the refresh token about to be sent (never a
 * copy of the token beyond the one the record holds); the record of the answer replaces it. A
 * record read back with that mark got no answer: its refresh token is not sent again, and the
 * bridge signs in anew (upstreamAuth.ts).
 */
import { createHash } from 'node:crypto';
import type { TokenRecord } from './store/types.js';

const fingerprint = (refreshToken: string): string => createHash('sha256').update(refreshToken).digest('hex');

/** The record as it is stored right before its refresh token is sent. */
export const markedForRefresh = (record: TokenRecord & { readonly refreshToken: string }): TokenRecord => ({
  ...record,
  refreshInFlight: fingerprint(record.refreshToken),
});

/** True when the refresh token of `record` was sent in a refresh whose answer never came. */
export const refreshUnanswered = (record: TokenRecord): boolean =>
  record.refreshToken !== undefined && record.refreshInFlight === fingerprint(record.refreshToken);
