/**
 * The profile of the executable that started this process: `mcp-bridge-vscode` (main.ts) keeps
 * the VS Code profile, `mcp-bridge` (mcpBridge.ts) selects the generic one before it loads the
 * shared CLI module. One process runs one executable, so this is set once, before `main` runs.
 */
import { vscodeProfile } from '../profiles/vscode.js';
import type { Profile } from '../profiles/profile.js';

let selected: Profile = vscodeProfile;

export const selectProfile = (profile: Profile): void => {
  selected = profile;
};

export const selectedProfile = (): Profile => selected;
