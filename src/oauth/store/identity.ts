/**
 * The storage identity of a sign-in and the account label (docs/sign-in.md#sign-in-stores): one
 * record per server URL and identity, so that two accounts, two redirect ports or two clients of
 * the same server keep separate tokens.
 */

export interface IdentityInput {
  /** The bridge name of the profile, e.g. `mcp-bridge-vscode`. */
  readonly bridgeName: string;
  /** The `--account` label (`default` unless given). */
  readonly account: string;
  /** The loopback redirect URI, e.g. `http://127.0.0.1:41894/callback`. */
  readonly redirectUri: string;
  /** `--client-id` when given. */
  readonly clientId?: string;
  /** An explicit `--client-metadata-url`; the default document keeps the base identity (docs/sign-in.md#sign-in-stores). */
  readonly metadataUrl?: string;
  /** `--grant` when not the browser sign-in: its tokens are kept apart (docs/sign-in.md#sign-in-grants). */
  readonly grant?: string;
}

/**
 * `<bridge name>|<account>|<redirect URI>`, plus `|client=<id>` for a pre-registered client or
 * `|cimd=<url>` for an explicit client metadata document (docs/sign-in.md#sign-in-stores), plus
 * `|grant=<name>` for a grant other than the browser sign-in, so that a token of one grant is never
 * taken for another. The command line lets only one
 * of the two through (docs/sign-in.md#sign-in-trigger: `--client-metadata-url` excludes `--client-id`); should both arrive,
 * the client ID wins because it names the client that really signs in.
 */
export function storageIdentity(input: IdentityInput): string {
  const base = `${input.bridgeName}|${input.account}|${input.redirectUri}`;
  const grant = input.grant === undefined ? '' : `|grant=${input.grant}`;
  if (input.clientId !== undefined) return `${base}|client=${input.clientId}${grant}`;
  if (input.metadataUrl !== undefined) return `${base}|cimd=${input.metadataUrl}${grant}`;
  return `${base}${grant}`;
}

/** The identity without the client part: what logout matches, since it takes no client option. */
export const baseIdentity = (input: Pick<IdentityInput, 'bridgeName' | 'account' | 'redirectUri'>): string =>
  `${input.bridgeName}|${input.account}|${input.redirectUri}`;

export type LabelCheck = { readonly ok: true } | { readonly ok: false; readonly hint: string };

const LABEL = /^[A-Za-z0-9._@+-]{1,64}$/;

/**
 * An account label has 1 to 64 characters of `[A-Za-z0-9._@+-]` (docs/sign-in.md#sign-in-stores, docs/sign-in.md#sign-in-trigger); in particular no
 * `|`, which separates the parts of the identity. The hint never repeats the label.
 */
export function checkAccountLabel(label: string): LabelCheck {
  return LABEL.test(label)
    ? { ok: true }
    : { ok: false, hint: 'an account label has 1 to 64 characters of A-Z a-z 0-9 . _ @ + -' };
}

/** The redirect URI of the loopback receiver on `port` (docs/sign-in.md#sign-in-receiver). */
export const loopbackRedirectUri = (port: number): string => `http://127.0.0.1:${port}/callback`;

/** The third part of the identity of an IdP session, where a sign-in has its redirect URI. */
const IDP_SESSION_PART = 'idp';

/**
 * The key of the IdP session of `--grant id-jag` (docs/sign-in.md#sign-in-idp-session): one per
 * IdP issuer, account label and IdP client, shared by every server of that IdP and every bridge
 * process: `url` is the IdP's issuer, `identity` is `<bridge name>|<account>|idp|client=<id>`.
 */
export const idpSessionKey = (input: {
  readonly bridgeName: string;
  readonly account: string;
  readonly issuer: string;
  readonly clientId: string;
}): { readonly url: string; readonly identity: string } => ({
  url: input.issuer,
  identity: `${input.bridgeName}|${input.account}|${IDP_SESSION_PART}|client=${input.clientId}`,
});

/** True for the key of an IdP session (a sign-in's third part is its redirect URI, never `idp`). */
export const isIdpSessionKey = (key: { readonly identity: string }): boolean =>
  key.identity.split('|')[2] === IDP_SESSION_PART;
