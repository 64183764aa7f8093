/**
 * Where the stores keep their files (docs/sign-in.md#sign-in-stores, with the project name
 * `mcp-bridge-sdk`): the token directory of the profile's sign-in identity (e.g.
 * `mcp-bridge-sdk/vscode/tokens`) below `%LOCALAPPDATA%` on Windows, else below
 * `$XDG_STATE_HOME` or `~/.local/state`. The sign-in locks of the keychain and memory stores go
 * to `locks/` next to the token directory.
 */
import { homedir } from 'node:os';
import path from 'node:path';

const nonEmpty = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
};

const pathOf = (platform: NodeJS.Platform): path.PlatformPath =>
  platform === 'win32' ? path.win32 : path.posix;

/** The user's state directory: `%LOCALAPPDATA%`, `$XDG_STATE_HOME` or `~/.local/state`. */
function userStateDirectory(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const p = pathOf(platform);
  if (platform === 'win32') return nonEmpty(env['LOCALAPPDATA']) ?? p.join(homedir(), 'AppData', 'Local');
  // XDG Base Directory: a relative $XDG_STATE_HOME is invalid and must be ignored.
  const xdg = nonEmpty(env['XDG_STATE_HOME']);
  return xdg !== undefined && p.isAbsolute(xdg)
    ? xdg
    : p.join(nonEmpty(env['HOME']) ?? homedir(), '.local', 'state');
}

/** The directory of the encrypted token files; `relative` is the profile's token directory. */
export const tokenDirectory = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform, relative: string): string =>
  pathOf(platform).join(userStateDirectory(env, platform), ...relative.split('/'));

/** The state directory of the profile: the parent of its token directory. */
export const stateDirectory = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform, relative: string): string =>
  pathOf(platform).dirname(tokenDirectory(env, platform, relative));

/** The directory of the sign-in locks when the tokens are not in files. */
export const lockDirectory = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform, relative: string): string =>
  pathOf(platform).join(stateDirectory(env, platform, relative), 'locks');
