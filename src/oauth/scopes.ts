/**
 * Scope selection (docs/sign-in.md#sign-in-scopes, docs/sign-in.md#sign-in-refresh). Pure.
 * - First sign-in: the `scope` of the challenge, else every `scopes_supported` of the protected
 *   resource metadata, else none (the server's default).
 * - `offline_access` is added only when the authorization server lists it in its
 *   `scopes_supported` (docs/sign-in.md#sign-in-refresh: servers do not put it in challenges or resource metadata).
 * - Step-up after a 403 `insufficient_scope`: the union of the scopes already granted and the
 *   challenged ones.
 */

const OFFLINE = 'offline_access';

/** The scopes of a space-separated list, without repeats, in order. */
export const splitScopes = (value: string | undefined): string[] => [
  ...new Set((value ?? '').split(/[ \t\r\n]+/).filter((scope) => scope !== '')),
];

const joined = (scopes: readonly string[]): string | undefined =>
  scopes.length === 0 ? undefined : scopes.join(' ');

const withOffline = (scopes: readonly string[], serverScopes: unknown): string[] =>
  Array.isArray(serverScopes) && serverScopes.includes(OFFLINE) && !scopes.includes(OFFLINE)
    ? [...scopes, OFFLINE]
    : [...scopes];

/** The `scope` of a first sign-in, or undefined to omit it. */
export function initialScope(input: {
  readonly challengeScope: string | undefined;
  readonly resourceScopes: readonly string[] | undefined;
  readonly serverScopes: unknown;
}): string | undefined {
  const base =
    input.challengeScope !== undefined
      ? splitScopes(input.challengeScope)
      : [...(input.resourceScopes ?? [])];
  return joined(withOffline(base, input.serverScopes));
}

/** The `scope` of a step-up: the granted scopes plus the challenged ones (and `offline_access`). */
export function stepUpScope(input: {
  readonly granted: string | undefined;
  readonly challengeScope: string | undefined;
  readonly serverScopes: unknown;
}): string | undefined {
  const union = [...new Set([...splitScopes(input.granted), ...splitScopes(input.challengeScope)])];
  return joined(withOffline(union, input.serverScopes));
}

/** True when every scope of `needed` is in `granted` (a 403 for scopes already held cannot be stepped up). */
export const covers = (granted: string | undefined, needed: string | undefined): boolean => {
  const held = new Set(splitScopes(granted));
  return splitScopes(needed).every((scope) => held.has(scope));
};
