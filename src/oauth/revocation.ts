/**
 * Token revocation at logout (RFC 7009): the refresh token first, then the access token, at the
 * `revocation_endpoint` of the authorization server that issued them (the record's `issuer`,
 * discovered again with the checks of serverMetadata.ts). The requests go through openid-client
 * with the fetch of the sign-in (guardedFetch: sign-in URLs only, no redirects, bounded bodies)
 * and the record's client authentication. The whole revocation of one record is bounded in time:
 * a server that does not answer never holds logout up. The outcome is one short sentence that
 * holds no token, secret or body (README.md, "Logout").
 */
import * as client from 'openid-client';
import { isBridgeError } from '../protocol/bridgeError.js';
import { checkEndpoint } from './endpoints.js';
import { configuration, refusal } from './flow.js';
import type { Fetch } from './http.js';
import { discoverServer } from './serverMetadata.js';
import type { TokenRecord } from './store/types.js';

/** The longest one revocation (discovery and both requests) may take. */
export const REVOCATION_TIMEOUT_MS = 10_000;

export type RevocationOutcome =
  | { readonly kind: 'revoked' }
  | { readonly kind: 'no_endpoint' }
  | { readonly kind: 'failed'; readonly detail: string };

export interface RevocationInput {
  readonly record: TokenRecord;
  readonly fetch: Fetch;
  /** The client's secret when it has one (the caller decides: see secretOfRecord). */
  readonly secret?: string;
  readonly timeoutMs?: number;
}

/**
 * The secret of the record's client for revocation: a dynamic client's stored one. A
 * pre-registered client's secret (MCP_BRIDGE_CLIENT_SECRET) goes only to the issuer of
 * `clientIssuer`, as at sign-in (SECURITY.md).
 */
export function secretOfRecord(
  record: TokenRecord,
  preRegistered: { readonly clientIssuer?: string; readonly clientSecret?: string },
): string | undefined {
  if (record.client.source === 'dynamic') return record.client.clientSecret;
  if (record.client.source === 'pre-registered' && preRegistered.clientIssuer === record.issuer)
    return preRegistered.clientSecret;
  return undefined;
}

/** Revokes the tokens of `record`; never rejects. */
export async function revokeRecord(input: RevocationInput): Promise<RevocationOutcome> {
  const { record, fetch } = input;
  const timeoutMs = input.timeoutMs ?? REVOCATION_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const late = (): RevocationOutcome => ({
    kind: 'failed',
    detail: `the authorization server did not answer within ${Math.round(timeoutMs / 1000)} s`,
  });
  if (record.client.authMethod !== 'none' && input.secret === undefined)
    return { kind: 'failed', detail: 'the secret of the client is not available' };
  try {
    const found = await discoverServer({ fetch, issuer: record.issuer, mcpUrl: record.url, signal });
    const endpoint = found.metadata.revocation_endpoint;
    if (endpoint === undefined) return { kind: 'no_endpoint' };
    const check = checkEndpoint(endpoint, record.url);
    if (!check.ok)
      return { kind: 'failed', detail: `the revocation endpoint is not usable: ${check.reason}` };
    const config = configuration(found.metadata, record.client, input.secret, fetch, record.url, signal);
    config.timeout = Math.max(1, Math.ceil(timeoutMs / 1000));
    if (record.refreshToken !== undefined)
      await client.tokenRevocation(config, record.refreshToken, { token_type_hint: 'refresh_token' });
    await client.tokenRevocation(config, record.accessToken, { token_type_hint: 'access_token' });
    return { kind: 'revoked' };
  } catch (error) {
    if (signal.aborted) return late();
    if (isBridgeError(error)) return { kind: 'failed', detail: error.detail ?? error.code };
    return { kind: 'failed', detail: refusal(error) };
  }
}

/** The origin of the issuer, for the outcome line (an issuer has no query: serverMetadata.ts). */
const originOf = (issuer: string): string => URL.parse(issuer)?.origin ?? 'the authorization server';

/** The one line of the outcome (README.md, "Logout"). */
export function outcomeLine(record: TokenRecord, outcome: RevocationOutcome): string {
  switch (outcome.kind) {
    case 'revoked':
      return `logout revoked the tokens at ${originOf(record.issuer)}`;
    case 'no_endpoint':
      return `logout did not revoke the tokens: the authorization server ${originOf(record.issuer)} has no revocation endpoint`;
    case 'failed':
      return `logout did not revoke the tokens: the revocation failed (${outcome.detail}); the local sign-in is deleted`;
  }
}
