/**
 * Where each client keeps its servers, per scope (docs/install.md#install-add). The places honor
 * the variables the clients themselves honor (APPDATA on Windows, XDG_CONFIG_HOME elsewhere,
 * CODEX_HOME, CLAUDE_CONFIG_DIR, COPILOT_HOME) and HOME (USERPROFILE on Windows), so that a
 * throwaway home holds everything `add` touches.
 */
import { posix, win32 } from 'node:path';
import type { ClientName, Scope } from './clients.js';

/** The machine `add` runs on: its environment, platform and working directory. */
export interface Place {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly cwd: string;
  /** The home directory when HOME (USERPROFILE on Windows) is not set. */
  readonly homedir: string;
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

/** The file of `client` in `scope`; the scope was checked against the client's scopes. */
export function configPath(client: ClientName, scope: Scope, place: Place): string {
  const { env, platform, cwd } = place;
  const path = platform === 'win32' ? win32 : posix;
  const home = nonEmpty(platform === 'win32' ? env['USERPROFILE'] : env['HOME']) ?? place.homedir;
  // The folder of per-user application settings: %APPDATA%, ~/Library/Application Support, XDG.
  const appData = (): string =>
    platform === 'win32'
      ? (nonEmpty(env['APPDATA']) ?? path.join(home, 'AppData', 'Roaming'))
      : platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : (nonEmpty(env['XDG_CONFIG_HOME']) ?? path.join(home, '.config'));
  const project = scope === 'project';
  switch (client) {
    case 'vscode':
      return project
        ? path.join(cwd, '.vscode', 'mcp.json')
        : path.join(appData(), 'Code', 'User', 'mcp.json');
    case 'claude-code':
      return project
        ? path.join(cwd, '.mcp.json')
        : path.join(nonEmpty(env['CLAUDE_CONFIG_DIR']) ?? home, '.claude.json');
    case 'claude-desktop':
      return path.join(appData(), 'Claude', 'claude_desktop_config.json');
    case 'codex':
      return project
        ? path.join(cwd, '.codex', 'config.toml')
        : path.join(nonEmpty(env['CODEX_HOME']) ?? path.join(home, '.codex'), 'config.toml');
    case 'gemini':
      return path.join(project ? cwd : home, '.gemini', 'settings.json');
    case 'copilot':
      // The project file of its own, not the .mcp.json it shares with Claude Code.
      return project
        ? path.join(cwd, '.github', 'mcp.json')
        : path.join(nonEmpty(env['COPILOT_HOME']) ?? path.join(home, '.copilot'), 'mcp-config.json');
  }
}
