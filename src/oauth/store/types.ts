import type { DpopKey } from '../dpop/key.js';
import type { GrantName } from '../grantName.js';

/**
 * What the sign-in keeps between requests and processes (docs/sign-in.md#sign-in-stores,
 * docs/sign-in.md#sign-in-refresh–8.10). Stores hold secrets: nothing here is ever logged.
 */

/** Where one record lives: the MCP server URL and the storage identity of docs/sign-in.md#sign-in-stores. */
export interface RecordKey {
  /** The MCP endpoint URL as given on the command line. */
  readonly url: string;
  /** `<bridge name>|<account>|<redirect URI>[|client=<id>|cimd=<url>]` (docs/sign-in.md#sign-in-stores). */
  readonly identity: string;
}

/** How the bridge is known to one authorization server (docs/sign-in.md#sign-in-registration, docs/sign-in.md#sign-in-registration). */
export interface ClientRegistration {
  readonly clientId: string;
  readonly source: 'pre-registered' | 'metadata-document' | 'dynamic';
  readonly authMethod: 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
  /** A dynamically registered client's own secret (never the one of MCP_BRIDGE_CLIENT_SECRET). */
  readonly clientSecret?: string;
}

/** One stored sign-in: tokens bound to the issuer and client that issued them. */
export interface TokenRecord extends RecordKey {
  readonly version: 1;
  /** The `issuer` of the validated authorization server metadata. */
  readonly issuer: string;
  /** The resource indicator sent on authorize, token and refresh requests (RFC 8707). */
  readonly resource: string;
  readonly client: ClientRegistration;
  readonly accessToken: string;
  /** `Bearer` unless the server said otherwise. */
  readonly tokenType: string;
  /** Epoch ms; absent when the server gave no `expires_in`. */
  readonly expiresAt?: number;
  readonly refreshToken?: string;
  /**
   * The SHA-256 (hex) of `refreshToken`, written right before that token is sent in a refresh
   * (refreshMark.ts); a record read back with it got no answer to that refresh, and its refresh
   * token is never sent again (SECURITY.md, sign-in requirement 4). Absent in records of older
   * versions of the bridge, which stay readable.
   */
  readonly refreshInFlight?: string;
  /** The granted scopes, space separated, as the token response (or the request) gave them. */
  readonly scope?: string;
  /** Epoch ms of the write; a store never replaces a record with an older one. */
  readonly savedAt: number;
  /**
   * The DPoP key pair the token is bound to (docs/sign-in.md#sign-in-dpop), its private key as a
   * JWK: encrypted with the record like the tokens; absent for a Bearer token.
   */
  readonly dpopKey?: DpopKey;
  /** The `--grant` that made the sign-in (docs/sign-in.md#sign-in-grants); absent: the browser sign-in. */
  readonly grant?: GrantName;
  /**
   * The issuer of the IdP whose session made this sign-in (`--grant id-jag`): `logout --idp`
   * deletes it with that session (docs/sign-in.md#sign-in-idp-session).
   */
  readonly idpIssuer?: string;
  /**
   * In the record of an IdP session only (its key: store/identity.ts idpSessionKey): the IdP's
   * ID token, whose expiry is `expiresAt`; its refresh token is `refreshToken`
   * (docs/sign-in.md#sign-in-idp-session).
   */
  readonly idToken?: string;
}

export interface TokenStore {
  readonly kind: 'keychain' | 'file' | 'memory';
  /** The start line that names the store (docs/sign-in.md#sign-in-stores), e.g. `the tokens stay in memory (--token-store memory)`. */
  readonly description: string;
  read(key: RecordKey): Promise<TokenRecord | undefined>;
  /**
   * Stores the record unless the stored one for the same key has a later `savedAt`; resolves
   * with the record that is stored afterwards (the caller's, or the newer one it found).
   */
  write(record: TokenRecord): Promise<TokenRecord>;
  /** True when a record was deleted. */
  delete(key: RecordKey): Promise<boolean>;
  /** The keys of the stored sign-ins (the index of docs/sign-in.md#sign-in-stores, at most 256). */
  list(): Promise<readonly RecordKey[]>;
}

/**
 * What the work under a lock knows of its hold (hold.ts). A cross-process lock can be lost: after
 * a stall longer than its stale time, another process may take it over.
 */
export interface LockHold {
  /** Aborts (with a LockLostError) as soon as the lock finds that another process took it over. */
  readonly signal: AbortSignal;
  /**
   * Resolves when the hold is still this holder's, and renews it; rejects with a LockLostError
   * (and aborts `signal`) when it is not. Called right before a refresh token is spent and before
   * a record is written.
   */
  confirm(): Promise<void>;
}

/**
 * Serialises sign-ins and refreshes of one key. The in-process lock serialises within one
 * process; the cross-process lock (docs/sign-in.md#sign-in-lock) elects one process of several.
 */
export interface SignInLock {
  /**
   * Runs `work` while holding the lock of `key`; waits while another holder has it. `signal`
   * (optional, added by the stores) ends the wait with a rejection, e.g. when stdin ends.
   */
  hold<T>(
    key: RecordKey,
    work: (held: LockHold) => Promise<T>,
    options?: { readonly signal?: AbortSignal },
  ): Promise<T>;
}
