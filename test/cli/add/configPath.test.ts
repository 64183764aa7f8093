/**
 * Where `add` writes for each client and scope (docs/install.md#install-add), on each platform,
 * with the variables the clients honor.
 */
import { describe, expect, it } from 'vitest';
import { CLIENTS } from '../../../src/cli/add/clients.js';
import { configPath } from '../../../src/cli/add/configPath.js';
import type { Place } from '../../../src/cli/add/configPath.js';

const linux: Place = { env: { HOME: '/home/ada' }, platform: 'linux', cwd: '/work/app', homedir: '/nowhere' };
const mac: Place = { env: { HOME: '/Users/ada' }, platform: 'darwin', cwd: '/work/app', homedir: '/nowhere' };
const windows: Place = {
  env: { USERPROFILE: 'C:\\Users\\ada', APPDATA: 'D:\\Roaming' },
  platform: 'win32',
  cwd: 'C:\\work\\app',
  homedir: 'C:\\nowhere',
};

describe('configPath', () => {
  it('gives the user files on Linux, macOS and Windows', () => {
    expect(CLIENTS.map((client) => configPath(client, 'user', linux))).toEqual([
      '/home/ada/.config/Code/User/mcp.json',
      '/home/ada/.claude.json',
      '/home/ada/.config/Claude/claude_desktop_config.json',
      '/home/ada/.codex/config.toml',
      '/home/ada/.gemini/settings.json',
      '/home/ada/.copilot/mcp-config.json',
    ]);
    expect(configPath('vscode', 'user', mac)).toBe(
      '/Users/ada/Library/Application Support/Code/User/mcp.json',
    );
    expect(configPath('claude-desktop', 'user', mac)).toBe(
      '/Users/ada/Library/Application Support/Claude/claude_desktop_config.json',
    );
    expect(CLIENTS.map((client) => configPath(client, 'user', windows))).toEqual([
      'D:\\Roaming\\Code\\User\\mcp.json',
      'C:\\Users\\ada\\.claude.json',
      'D:\\Roaming\\Claude\\claude_desktop_config.json',
      'C:\\Users\\ada\\.codex\\config.toml',
      'C:\\Users\\ada\\.gemini\\settings.json',
      'C:\\Users\\ada\\.copilot\\mcp-config.json',
    ]);
  });

  it('gives the project files in the working directory', () => {
    expect(
      CLIENTS.filter((client) => client !== 'claude-desktop').map((client) =>
        configPath(client, 'project', linux),
      ),
    ).toEqual([
      '/work/app/.vscode/mcp.json',
      '/work/app/.mcp.json',
      '/work/app/.codex/config.toml',
      '/work/app/.gemini/settings.json',
      '/work/app/.github/mcp.json',
    ]);
  });

  it('honors XDG_CONFIG_HOME, CLAUDE_CONFIG_DIR, CODEX_HOME and COPILOT_HOME, and HOME before the home directory', () => {
    const place: Place = {
      ...linux,
      env: {
        HOME: '/home/ada',
        XDG_CONFIG_HOME: '/cfg',
        CLAUDE_CONFIG_DIR: '/cc',
        CODEX_HOME: '/cx',
        COPILOT_HOME: '/cp',
      },
    };
    expect(CLIENTS.map((client) => configPath(client, 'user', place))).toEqual([
      '/cfg/Code/User/mcp.json',
      '/cc/.claude.json',
      '/cfg/Claude/claude_desktop_config.json',
      '/cx/config.toml',
      '/home/ada/.gemini/settings.json',
      '/cp/mcp-config.json',
    ]);
    expect(configPath('gemini', 'user', { ...linux, env: { HOME: '' } })).toBe(
      '/nowhere/.gemini/settings.json',
    );
  });
});
