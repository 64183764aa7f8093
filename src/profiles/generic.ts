import type { Profile } from './profile.js';

/**
 * The profile of `mcp-bridge`: any MCP 2025-11-25 client. No VS Code quirk: array schemas pass
 * as the upstream wrote them; only what 2025-11-25 itself forbids is changed (a non-object
 * `outputSchema`, docs/results.md#results-tools-list). Every `_meta` key of a client request that
 * 2026-07-28 does not reserve travels upstream, with the client's full `clientInfo` and
 * `roots.listChanged`. Its own names in logs, keychain and token files, a
 * redirect port of its own so that both executables can sign in at the same time, its own client
 * ID metadata document (`site/generic/client.json`), and a browser for a sign-in after
 * `notifications/initialized` when the client cannot show a URL.
 *
 * @example
 * import { genericProfile } from 'mcp-bridge-sdk';
 * const normalizes = genericProfile.quirks.normalizeArrayItems; // false
 */
export const genericProfile: Profile = Object.freeze({
  name: 'mcp-bridge',
  logScope: 'bridge',
  // Every _meta key a 2025-11-25 client may set travels (Codex's x-codex-turn-metadata and
  // threadId, Claude Code's claudecode/toolUseId), and all of its clientInfo and roots.
  metaPassthrough: Object.freeze({
    keys: Object.freeze([]),
    prefixes: Object.freeze([]),
    unreserved: true,
    fullClientInfo: true,
    rootsListChanged: true,
  }),
  quirks: Object.freeze({ normalizeArrayItems: false, dropNonObjectOutputSchema: true }),
  identity: Object.freeze({
    clientName: 'mcp-bridge (mcp-bridge-sdk)',
    keychainService: 'mcp-bridge-sdk/mcp-bridge',
    redirectPort: 41895,
    metadataDocumentUrl: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/generic/client.json',
    // Claude Desktop, Codex, Cursor and the like show no URL of a server: the browser opens.
    browserWithoutUrlElicitation: true,
    tokenDirectory: 'mcp-bridge-sdk/generic/tokens',
  }),
});
