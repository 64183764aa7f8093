/**
 * The IdP sessions in `status` (README.md, "Status"; docs/sign-in.md#sign-in-idp-session): for
 * each, the IdP's issuer, the account, the store, the expiry of its ID token and whether it can be
 * refreshed; never a token.
 */
import { oneLine } from '../ports/terminalText.js';
import type { TokenRecord } from '../oauth/store/types.js';
import { accountOf, type StoreKind } from './accountStores.js';

/** One IdP session as `status --json` prints it; the field names are stable (README.md). */
export interface IdpSessionStatus {
  readonly kind: 'idp-session';
  readonly issuer: string;
  readonly account: string;
  readonly store: StoreKind;
  /** ISO 8601 time of the ID token's expiry. */
  readonly idTokenExpiresAt: string | null;
  readonly idTokenExpired: boolean | null;
  /** Whether an IdP refresh token is stored (never the token). */
  readonly refreshable: boolean;
  /** ISO 8601 time of the last write: the sign-in at the IdP or its last refresh. */
  readonly lastRefreshAt: string;
}

export function idpSessionStatusOf(record: TokenRecord, store: StoreKind, now: number): IdpSessionStatus {
  const expires = record.expiresAt;
  return {
    kind: 'idp-session',
    issuer: oneLine(record.url),
    account: oneLine(accountOf(record.identity)),
    store,
    idTokenExpiresAt: expires === undefined ? null : new Date(expires).toISOString(),
    idTokenExpired: expires === undefined ? null : expires <= now,
    refreshable: record.refreshToken !== undefined,
    lastRefreshAt: new Date(record.savedAt).toISOString(),
  };
}

/** The text of one IdP session; `expiry` is the expiry as statusText words it. */
export function idpSessionText(status: IdpSessionStatus, expiry: string): string {
  return [
    `IdP session ${status.issuer}`,
    `  account:       ${status.account}`,
    `  store:         ${status.store}`,
    `  ID token:      expires ${expiry}`,
    `  refreshable:   ${status.refreshable ? 'yes' : 'no'}`,
    `  last refresh:  ${status.lastRefreshAt}`,
  ].join('\n');
}
