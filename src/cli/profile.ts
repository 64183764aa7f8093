/**
 * The identity of the `vscode` profile toward authorization servers
 * (reference-behaviors.md §6.9, §6.11). The client ID metadata document is the project's
 * `site/vscode/client.json`, published on Pages at {@link CLIENT_METADATA_URL}; it lists only the
 * default redirect URI, so another `--redirect-port` registers dynamically (§6.9).
 */

/** The bridge name of the storage identity and of the log lines. */
export const BRIDGE_NAME = 'mcp-bridge-vscode';
/** `client_name` of the metadata document and of a dynamic registration. */
export const CLIENT_NAME = 'mcp-bridge-vscode (mcp-bridge-sdk)';
/** The keychain service of the token store. */
export const KEYCHAIN_SERVICE = 'mcp-bridge-sdk/mcp-bridge-vscode';
/** The URL of the published `site/vscode/client.json`: its `client_id` is this URL itself. */
export const CLIENT_METADATA_URL = 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json';
/** The only redirect URI of the metadata document (`--redirect-port` 41894). */
export const CLIENT_METADATA_REDIRECT_URI = 'http://127.0.0.1:41894/callback';
