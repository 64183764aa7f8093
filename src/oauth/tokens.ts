/**
 * Token records (reference-behaviors.md §6.4, §6.11; src/oauth/store/types.ts): when a stored
 * access token may be used without any request, and the record a token response gives.
 */
import type { ClientRegistration, RecordKey, TokenRecord } from './store/types.js';

/** A token that expires within this margin is refreshed first (reference §6.4: ~1 min). */
export const REFRESH_MARGIN_MS = 60_000;

/** True when the access token may be sent as it is (no expiry known, or beyond the margin). */
export const usableAt = (record: TokenRecord, now: number): boolean =>
  record.expiresAt === undefined || record.expiresAt - now > REFRESH_MARGIN_MS;

/** The fields of a token endpoint response the bridge keeps (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type?: string;
  readonly expires_in?: number;
  readonly refresh_token?: string;
  readonly scope?: string;
}

export interface RecordInput {
  readonly key: RecordKey;
  readonly issuer: string;
  readonly resource: string;
  readonly client: ClientRegistration;
  readonly response: TokenResponse;
  /** The scope that was asked for, kept when the response names none (RFC 6749 §5.1). */
  readonly requestedScope: string | undefined;
  /** The record a refresh started from: its refresh token stays when no new one came. */
  readonly previous?: TokenRecord;
  readonly now: number;
}

export function tokenRecord(input: RecordInput): TokenRecord {
  const { response, previous, now } = input;
  const refreshToken = response.refresh_token ?? previous?.refreshToken;
  const scope = response.scope ?? input.requestedScope ?? previous?.scope;
  const expiresIn = response.expires_in;
  return {
    version: 1,
    url: input.key.url,
    identity: input.key.identity,
    issuer: input.issuer,
    resource: input.resource,
    client: input.client,
    accessToken: response.access_token,
    tokenType: 'Bearer',
    ...(typeof expiresIn === 'number' && Number.isFinite(expiresIn)
      ? { expiresAt: now + expiresIn * 1000 }
      : {}),
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(scope === undefined ? {} : { scope }),
    // A store keeps the later of two records: a record made here is later than the one it replaces.
    savedAt: Math.max(now, (previous?.savedAt ?? 0) + 1),
  };
}
