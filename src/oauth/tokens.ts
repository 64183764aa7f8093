/**
 * Token records (docs/sign-in.md#sign-in-trigger, docs/sign-in.md#sign-in-stores; src/oauth/store/types.ts): when a stored
 * access token may be used without any request, and the record a token response gives.
 */
import { BridgeError } from '../protocol/bridgeError.js';
import type { DpopKey } from './dpop/key.js';
import type { GrantName } from './grantName.js';
import type { ClientRegistration, RecordKey, TokenRecord } from './store/types.js';

/** A token that expires within this margin is refreshed first (docs/sign-in.md#sign-in-trigger: ~1 min). */
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

/** RFC 6750 §2.1 `b64token`: the only access tokens an `Authorization: Bearer` header can carry. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

const refused = (detail: string): BridgeError => new BridgeError('sign_in_failed', { detail });

/**
 * A token response the bridge can use, checked at receipt so that nothing unusable is stored
 * (SECURITY.md "Tolerances of the sign-in"): the access token is `b64token` syntax (a CR, LF,
 * NUL or any character outside it would make every request fail without a 401) and the token
 * type is `Bearer` in any case (RFC 6749 §5.1: case-insensitive; oauth4webapi writes it in lower
 * case), or `DPoP` when the token request carried DPoP proofs (`dpopBound`,
 * docs/sign-in.md#sign-in-dpop). `expires_in` given as a string of digits is read
 * as its number by oauth4webapi before this check.
 */
export function acceptedTokens(response: TokenResponse, dpopBound = false): TokenResponse {
  if (typeof response.access_token !== 'string' || !B64TOKEN.test(response.access_token)) {
    throw refused('the access token is not a bearer token value (RFC 6750 §2.1); nothing was stored');
  }
  const type = typeof response.token_type === 'string' ? response.token_type.toLowerCase() : undefined;
  if (type === 'dpop' && dpopBound) return response;
  if (type === 'dpop') {
    throw refused(
      'the authorization server issued a DPoP token to a request without DPoP (it does not advertise DPoP, or --no-dpop is set); nothing was stored',
    );
  }
  // oauth4webapi refuses other types before this (flow.ts maps that to the same detail).
  if (type !== 'bearer') throw refused('the token type is not Bearer; nothing was stored');
  if (response.refresh_token !== undefined && typeof response.refresh_token !== 'string') {
    throw refused('the refresh token is not a string; nothing was stored');
  }
  return response;
}

export interface RecordInput {
  readonly key: RecordKey;
  readonly issuer: string;
  readonly resource: string;
  readonly client: ClientRegistration;
  readonly response: TokenResponse;
  /** The scope that was asked for, kept when the response names none (RFC 6749 §5.1). */
  readonly requestedScope: string | undefined;
  /** The DPoP key the token request was signed with (docs/sign-in.md#sign-in-dpop). */
  readonly dpopKey?: DpopKey | undefined;
  /** The `--grant` of a new sign-in other than the browser one (docs/sign-in.md#sign-in-grants); a refresh keeps the previous one's. */
  readonly grant?: GrantName | undefined;
  /** The issuer of the IdP session of an `id-jag` sign-in (docs/sign-in.md#sign-in-idp-session); a refresh keeps the previous one's. */
  readonly idpIssuer?: string | undefined;
  /** The record a refresh started from: its refresh token stays when no new one came. */
  readonly previous?: TokenRecord;
  readonly now: number;
}

export function tokenRecord(input: RecordInput): TokenRecord {
  const { response, previous, now } = input;
  const refreshToken = response.refresh_token ?? previous?.refreshToken;
  const scope = response.scope ?? input.requestedScope ?? previous?.scope;
  const expiresIn = response.expires_in;
  const dpop = response.token_type?.toLowerCase() === 'dpop';
  const dpopKey = input.dpopKey ?? previous?.dpopKey;
  const grant = input.grant ?? previous?.grant;
  const idpIssuer = input.idpIssuer ?? previous?.idpIssuer;
  return {
    version: 1,
    url: input.key.url,
    identity: input.key.identity,
    issuer: input.issuer,
    resource: input.resource,
    client: input.client,
    accessToken: response.access_token,
    tokenType: dpop ? 'DPoP' : 'Bearer',
    ...(typeof expiresIn === 'number' && Number.isFinite(expiresIn)
      ? { expiresAt: now + expiresIn * 1000 }
      : {}),
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(scope === undefined ? {} : { scope }),
    // Kept with a DPoP token only: a Bearer token needs no key.
    ...(dpop && dpopKey !== undefined ? { dpopKey } : {}),
    ...(grant === undefined ? {} : { grant }),
    ...(idpIssuer === undefined ? {} : { idpIssuer }),
    // A store keeps the later of two records: a record made here is later than the one it replaces.
    savedAt: Math.max(now, (previous?.savedAt ?? 0) + 1),
  };
}
