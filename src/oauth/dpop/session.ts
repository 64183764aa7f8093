/**
 * The DPoP state of one upstream's sign-in (docs/sign-in.md#sign-in-dpop): whether DPoP is on,
 * whether the resource asked for it, and the latest nonce of each server (the authorization
 * server's per origin, the resource's apart), as RFC 9449 §8 and §9 hand them out.
 */

/** Nonces are short strings; a longer one is not kept (it would grow every proof). */
const MAX_NONCE_CHARS = 512;
/** The authorization servers of one upstream are few; older origins are forgotten first. */
const MAX_ORIGINS = 8;

export interface DpopSession {
  /** False with `--no-dpop`. */
  readonly enabled: boolean;
  /** Set once the resource answered `WWW-Authenticate: DPoP ...`. */
  resourceAsked: boolean;
  /** The latest nonce of the MCP server (the resource). */
  resourceNonce: string | undefined;
  /** The latest nonce of each authorization server origin. */
  readonly serverNonces: Map<string, string>;
}

export const dpopSession = (enabled: boolean): DpopSession => ({
  enabled,
  resourceAsked: false,
  resourceNonce: undefined,
  serverNonces: new Map(),
});

/** A `DPoP-Nonce` header value the bridge keeps: NQCHAR (RFC 9449 §8.1), bounded. */
export const validNonce = (value: string | null | undefined): string | undefined =>
  typeof value === 'string' &&
  value.length > 0 &&
  value.length <= MAX_NONCE_CHARS &&
  /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(value)
    ? value
    : undefined;

export function rememberServerNonce(session: DpopSession, origin: string, nonce: string): void {
  session.serverNonces.delete(origin);
  session.serverNonces.set(origin, nonce);
  for (const old of session.serverNonces.keys()) {
    if (session.serverNonces.size <= MAX_ORIGINS) break;
    session.serverNonces.delete(old);
  }
}

/** True when a WWW-Authenticate value has a DPoP challenge (RFC 9449 §7.1). */
export const asksDpop = (wwwAuthenticate: string | undefined): boolean =>
  wwwAuthenticate !== undefined && /(^|,)\s*DPoP(\s|,|$)/i.test(wwwAuthenticate);

/** True when a WWW-Authenticate value has `error="use_dpop_nonce"` (RFC 9449 §9). */
export const asksNonce = (wwwAuthenticate: string | undefined): boolean =>
  wwwAuthenticate !== undefined && /error\s*=\s*"?use_dpop_nonce"?/i.test(wwwAuthenticate);
