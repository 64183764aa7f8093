/**
 * What `--grant id-jag` asks of the authorization server (docs/sign-in.md#sign-in-id-jag): it takes
 * the ID-JAG as the assertion of an RFC 7523 jwt-bearer grant, so its metadata must say so, by
 * listing the jwt-bearer grant type in `grant_types_supported` or the ID-JAG grant profile in
 * `authorization_grant_profiles_supported`. A server that lists neither (or lists nothing: RFC
 * 8414's default is `authorization_code` and `implicit`) fails before the IdP is asked for
 * anything, so no ID token leaves for a server that cannot use it.
 */
import type { ServerMetadata } from 'openid-client';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const ID_JAG_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';

const lists = (value: unknown, wanted: string): boolean => Array.isArray(value) && value.includes(wanted);

/** Why the server cannot take an ID-JAG, or undefined when it can. */
export function idJagRefusal(as: ServerMetadata): string | undefined {
  if (lists(as.grant_types_supported, JWT_BEARER)) return undefined;
  if (lists(as['authorization_grant_profiles_supported'], ID_JAG_PROFILE)) return undefined;
  return `the authorization server lists neither ${JWT_BEARER} in grant_types_supported nor ${ID_JAG_PROFILE} in authorization_grant_profiles_supported`;
}
