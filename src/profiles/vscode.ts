import { REFERENCE_PASSTHROUGH } from '../protocol/metaPassthrough.js';
import type { Profile } from './profile.js';

/**
 * The profile of `mcp-bridge-vscode` (docs/architecture.md#architecture-profile): VS Code and Copilot, with
 * the items fix of docs/results.md#results-items-fix and the output schema rule of docs/results.md#results-output-schema.
 *
 * @example
 * import { vscodeProfile } from 'mcp-bridge-sdk';
 * const name = vscodeProfile.name; // 'mcp-bridge-vscode'
 */
export const vscodeProfile: Profile = Object.freeze({
  name: 'mcp-bridge-vscode',
  logScope: 'vscode',
  // The reference rule (REFERENCE_PASSTHROUGH): VS Code's own _meta keys are vscode.* and the
  // trace keys (docs/requests.md#requests-meta); the name and version of VS Code; roots: {}.
  metaPassthrough: REFERENCE_PASSTHROUGH,
  quirks: Object.freeze({ normalizeArrayItems: true, dropNonObjectOutputSchema: true }),
  identity: Object.freeze({
    clientName: 'mcp-bridge-vscode (mcp-bridge-sdk)',
    keychainService: 'mcp-bridge-sdk/mcp-bridge-vscode',
    redirectPort: 41894,
    metadataDocumentUrl: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json',
    browserWithoutUrlElicitation: false,
    tokenDirectory: 'mcp-bridge-sdk/vscode/tokens',
  }),
});
