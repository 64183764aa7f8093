/**
 * Where the stores keep their files (reference-behaviors.md §6.11, with the project name
 * `mcp-bridge-sdk`): `%LOCALAPPDATA%\mcp-bridge-sdk\vscode` on Windows, else
 * `$XDG_STATE_HOME/mcp-bridge-sdk/vscode` or `~/.local/state/mcp-bridge-sdk/vscode`. Tokens go
 * to `tokens/` below it; the sign-in locks of the keychain and memory stores to `locks/`.
 */
import { homedir } from 'node:os';
import path from 'node:path';

const nonEmpty = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
};

/** The state directory of the profile. */
export function stateDirectory(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const p = platform === 'win32' ? path.win32 : path.posix;
  if (platform === 'win32') {
    const local = nonEmpty(env['LOCALAPPDATA']) ?? p.join(homedir(), 'AppData', 'Local');
    return p.join(local, 'mcp-bridge-sdk', 'vscode');
  }
  // XDG Base Directory: a relative $XDG_STATE_HOME is invalid and must be ignored.
  const xdg = nonEmpty(env['XDG_STATE_HOME']);
  const base =
    xdg !== undefined && p.isAbsolute(xdg)
      ? xdg
      : p.join(nonEmpty(env['HOME']) ?? homedir(), '.local', 'state');
  return p.join(base, 'mcp-bridge-sdk', 'vscode');
}

/** The directory of the encrypted token files. */
export const tokenDirectory = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string =>
  (platform === 'win32' ? path.win32 : path.posix).join(stateDirectory(env, platform), 'tokens');

/** The directory of the sign-in locks when the tokens are not in files. */
export const lockDirectory = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string =>
  (platform === 'win32' ? path.win32 : path.posix).join(stateDirectory(env, platform), 'locks');
