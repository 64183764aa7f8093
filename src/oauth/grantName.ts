/**
 * The names of the sign-in grants (`--grant`, docs/sign-in.md#sign-in-grants), in a file of their
 * own: the command line (src/cli/grantOption.ts), the grant table (grants.ts) and the token
 * records (store/types.ts) share them without loading each other.
 */
export type GrantName = 'authorization-code' | 'client-credentials' | 'jwt-bearer' | 'id-jag' | 'device-code';
