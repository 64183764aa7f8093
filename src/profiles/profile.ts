/**
 * A profile holds what differs between the products a bridge serves (docs/architecture.md#architecture-profile
 * ): the name and scope in logs, the name in the fallback `serverInfo`, the
 * `_meta` pass-through (what of the client travels upstream), the quirks of the client, and the
 * identity used to sign in. Runtime-neutral data: no Node module is reachable from here.
 */
import type { MetaPassthrough } from '../protocol/metaPassthrough.js';

/** Result rules that exist for one client, not for the protocol (docs/results.md#results-items-fix–3.9). */
export interface ProfileQuirks {
  /**
   * `normalize_array_items`: an array schema without `items` in a tool's `inputSchema` gets
   * `items: {}` (Copilot throws on such nodes, docs/results.md#results-items-fix).
   */
  readonly normalizeArrayItems: boolean;
  /**
   * `drop_non_object_output_schema`: a tool `outputSchema` whose root `type` is not `"object"` is
   * removed (docs/results.md#results-output-schema). 2025-11-25 allows only object output schemas (docs/results.md#results-tools-list), so a
   * profile turns it off only for a client that accepts any schema.
   */
  readonly dropNonObjectOutputSchema: boolean;
}

/** Who the bridge is when it signs in to an HTTP upstream (docs/architecture.md#architecture-profile, docs/sign-in.md#sign-in-trigger). */
export interface SignInIdentity {
  /** The OAuth `client_name`. */
  readonly clientName: string;
  /** The service name of the tokens in the system keychain. */
  readonly keychainService: string;
  /** The default port of the loopback redirect URI. */
  readonly redirectPort: number;
  /**
   * The default client ID metadata document URL, or undefined when the product has none. The
   * document is `site/<profile>/client.json`, published on the project's Pages; it lists only the
   * redirect URI of `redirectPort`.
   */
  readonly metadataDocumentUrl: string | undefined;
  /**
   * After `notifications/initialized`, a sign-in for a client that declared no URL elicitation
   * opens the browser with the one-time start URL (true), or fails at once with
   * `reauthorization_required`, detail `no_consent` (false: the reference rule). A client that
   * declared URL elicitation is asked by one either way.
   */
  readonly browserWithoutUrlElicitation: boolean;
  /** The directory of the token files, relative to the user's data directory. */
  readonly tokenDirectory: string;
}

/** The settings of one product (docs/architecture.md#architecture-profile). */
export interface Profile {
  /** The product's name: the program name of log lines and the last fallback `serverInfo.name`. */
  readonly name: string;
  /**
   * The scope of the executable's own log lines and diagnostics (the command line, the token
   * store, logout and status): `vscode` for `mcp-bridge-vscode` (docs/logging.md#logging-line-format),
   * `bridge` for `mcp-bridge`.
   */
  readonly logScope: string;
  /** What of the client travels upstream in `_meta` (BridgeConfig.metaPassthrough). */
  readonly metaPassthrough: MetaPassthrough;
  readonly quirks: ProfileQuirks;
  readonly identity: SignInIdentity;
}
