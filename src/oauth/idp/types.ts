/** The IdP of `--grant id-jag` (docs/sign-in.md#sign-in-id-jag). */
export interface IdpSettings {
  readonly issuer: string; // --idp-issuer
  readonly clientId: string; // --idp-client-id
  readonly clientSecret?: string; // MCP_BRIDGE_IDP_CLIENT_SECRET
  readonly tokenEndpoint?: string; // --idp-token-endpoint
  readonly idTokenFile?: string; // --id-token-file
}
