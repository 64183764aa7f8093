/**
 * The scenarios `npm run conformance` runs, with what each is expected to give (README.md
 * "Conformance" states the same table and why each scenario left out is left out).
 */

/** The suite, and the Node it needs (22; the bridge itself runs on 20.19+). */
export const SUITE_VERSION = '0.2.0-alpha.12';
export const SUITE_NODE = '22';

/**
 * The client auth scenarios of `--spec-version 2026-07-28` in scope: the sign-in of a person
 * with the authorization code. Every check of each must pass (a warning counts as a failure).
 */
export const AUTH_SCENARIOS: readonly string[] = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/authorization-server-migration',
  'auth/iss-supported',
  'auth/iss-not-advertised',
  'auth/iss-supported-missing',
  'auth/iss-wrong-issuer',
  'auth/iss-unexpected',
  'auth/iss-normalized',
  'auth/metadata-issuer-mismatch',
  // The DPoP extension (RFC 9449, docs/sign-in.md#sign-in-dpop).
  'auth/dpop',
  'auth/dpop-nonce',
  // The grants without a person (docs/sign-in.md#sign-in-grants): client credentials, workload identity.
  'auth/client-credentials-basic',
  'auth/client-credentials-jwt',
  'auth/wif-jwt-bearer',
  // Enterprise-managed authorization (docs/sign-in.md#sign-in-id-jag): token exchange, then jwt-bearer.
  'auth/enterprise-managed-authorization',
];

/**
 * Scenarios of extensions: not on the spec timeline, so the suite skips them unless `--force`
 * is given (its own rule).
 */
export const EXTENSION_SCENARIOS: ReadonlySet<string> = new Set([
  'auth/dpop',
  'auth/dpop-nonce',
  'auth/client-credentials-basic',
  'auth/client-credentials-jwt',
  'auth/wif-jwt-bearer',
  'auth/enterprise-managed-authorization',
]);

/** Auth scenarios of the suite left out, and why. */
export const AUTH_LEFT_OUT: Readonly<Record<string, string>> = {
  'auth/2025-03-26-oauth-metadata-backcompat':
    'revision 2025-03-26 only (no protected resource metadata); not part of 2026-07-28',
  'auth/2025-03-26-oauth-endpoint-fallback': 'revision 2025-03-26 only (endpoints without metadata)',
};

/**
 * The other client scenarios of 2026-07-28, with the checks passed / counted when this table was
 * last written; a change shows up as a difference. They test the driver's tool calls as much as
 * the bridge (README.md "Conformance" says which is which).
 */
export const OTHER_BASELINE: Readonly<Record<string, string>> = {
  tools_call: '2/2',
  'request-metadata': '6/6',
  'http-standard-headers': '3/3',
  'http-invalid-tool-headers': '12/12',
  'json-schema-ref-no-deref': '1/1',
  'json-schema-2020-12-preservation': '2/3',
  'http-custom-headers': '2/6',
  'sep-2322-client-request-state': '2/5',
};

/**
 * The front face (server scenarios of 2025-11-25) through frontAdapter.ts, in front of the
 * project's fixture server. Left out: the scenarios that call the suite's own tools, resources
 * and prompts (`test_simple_text`, `test://static-text`, ...), which the fixture does not have.
 */
export const FRONT_BASELINE: Readonly<Record<string, string>> = {
  'server-initialize': '3/3',
  ping: '2/2',
  'logging-set-level': '2/2',
  'tools-list': '3/3',
  'resources-list': '2/2',
  'resources-subscribe': '2/2',
  'resources-unsubscribe': '2/2',
  'prompts-list': '2/2',
};

/**
 * The serve face: every scored server scenario of 2025-11-25, run straight at `mcp-bridge serve --
 * node upstream.js` (a 2026-07-28-only server with the suite's tools, resources and prompts).
 * Every check of each must pass (a warning counts as a failure).
 */
export const SERVE_SCENARIOS: readonly string[] = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
];
