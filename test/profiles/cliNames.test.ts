/**
 * The executable of a profile names itself (docs/cli.md#cli-forms):
 * `--version`, `--help` and the usage lines of `mcp-bridge` say `mcp-bridge`, with the generic
 * profile's default redirect port; those of `mcp-bridge-vscode` stay as they were. The last block
 * runs the built executables (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/args.js';
import { usageText } from '../../src/cli/help.js';
import { genericProfile } from '../../src/profiles/generic.js';
import { vscodeProfile } from '../../src/profiles/vscode.js';
import { BRIDGE, GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';

const helpOf = (profile: typeof genericProfile): string => {
  const parsed = parseCommandLine(['--help'], {}, '9.8.7', profile);
  if (parsed.kind !== 'help') expect.fail(`expected help, got ${parsed.kind}`);
  return parsed.text;
};

describe('the names of the command line of a profile', () => {
  it('--version names the executable of the profile', () => {
    expect(parseCommandLine(['--version'], {}, '9.8.7', genericProfile)).toEqual({
      kind: 'version',
      text: 'mcp-bridge 9.8.7',
    });
    expect(parseCommandLine(['--version'], {}, '9.8.7', vscodeProfile)).toEqual({
      kind: 'version',
      text: 'mcp-bridge-vscode 9.8.7',
    });
    // Without a profile, the command line is the one of mcp-bridge-vscode.
    expect(parseCommandLine(['--version'], {}, '9.8.7')).toEqual({
      kind: 'version',
      text: 'mcp-bridge-vscode 9.8.7',
    });
  });

  it('the help of mcp-bridge names mcp-bridge, any client and its own redirect port', () => {
    const help = helpOf(genericProfile);
    expect(help.startsWith('Usage: mcp-bridge [options] -- <command> [args...]\n')).toBe(true);
    expect(help).toContain('\n       mcp-bridge logout [options] --all\n');
    expect(help).not.toContain('mcp-bridge-vscode');
    expect(help).toContain('Connects an MCP client (MCP 2025-11-25 on stdin and stdout)');
    expect(help).toContain('server name shown to the client when the upstream gives none');
    expect(help).toContain('(default: 41895)');
    expect(help).not.toContain('(default: 41894)');
    expect(help.split('\n').filter((line) => line.length > 100)).toEqual([]);
  });

  it('the help of mcp-bridge-vscode names VS Code and the port 41894', () => {
    const help = helpOf(vscodeProfile);
    expect(help.startsWith('Usage: mcp-bridge-vscode [options] -- <command> [args...]\n')).toBe(true);
    expect(help).toContain('Connects VS Code (MCP 2025-11-25 on stdin and stdout)');
    expect(help).toContain('(default: 41894)');
  });

  it('the usage lines name the executable of the profile', () => {
    expect(usageText(genericProfile)).toBe(
      [
        'Usage: mcp-bridge [options] -- <command> [args...]',
        '       mcp-bridge [options] <url>',
        '       mcp-bridge logout [options] <url>',
        '       mcp-bridge logout [options] --all',
        '       mcp-bridge logout [options] --idp <issuer>',
        '       mcp-bridge status [options] [<url>]',
        '       mcp-bridge add <client> [options] (-- <command> [args...] | <url>)',
        '       mcp-bridge doctor [options] (-- <command> [args...] | <url>)',
        '       mcp-bridge serve [--listen 127.0.0.1:<port>] [options] -- <command> [args...]',
        '       mcp-bridge serve [--listen 127.0.0.1:<port>] [options] <url>',
        'Run "mcp-bridge --help" for the options.',
      ].join('\n'),
    );
  });

  it('the default redirect port of the sign-in and of logout is the profile one', () => {
    const url = 'https://mcp.example.com/mcp';
    const generic = parseCommandLine([url], {}, '1.0.0', genericProfile);
    const vscode = parseCommandLine([url], {}, '1.0.0', vscodeProfile);
    expect(generic.kind === 'serve' ? generic.options.signIn?.redirectPort : undefined).toBe(41895);
    expect(vscode.kind === 'serve' ? vscode.options.signIn?.redirectPort : undefined).toBe(41894);
    const logout = parseCommandLine(['logout', url], {}, '1.0.0', genericProfile);
    expect(logout.kind === 'logout' ? logout.options : undefined).toMatchObject({
      redirectPort: 41895,
      bridgeName: 'mcp-bridge',
    });
  });
});

describe('the built executables (npm run build)', () => {
  const run = (file: string, args: string[]) =>
    spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', timeout: 30_000 });

  it('mcp-bridge --version and --help say mcp-bridge', () => {
    const version = run(GENERIC_BRIDGE, ['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^mcp-bridge \d+\.\d+\.\d+\S*\n$/);
    const help = run(GENERIC_BRIDGE, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.startsWith('Usage: mcp-bridge [options] -- <command> [args...]\n')).toBe(true);
    expect(help.stdout).not.toContain('mcp-bridge-vscode');
  });

  it('the usage lines after a diagnostic of mcp-bridge say mcp-bridge', () => {
    const bad = run(GENERIC_BRIDGE, ['--no-such-option']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.split('\n').slice(1)).toEqual([
      'Usage: mcp-bridge [options] -- <command> [args...]',
      '       mcp-bridge [options] <url>',
      '       mcp-bridge logout [options] <url>',
      '       mcp-bridge logout [options] --all',
      '       mcp-bridge logout [options] --idp <issuer>',
      '       mcp-bridge status [options] [<url>]',
      '       mcp-bridge add <client> [options] (-- <command> [args...] | <url>)',
      '       mcp-bridge doctor [options] (-- <command> [args...] | <url>)',
      '       mcp-bridge serve [--listen 127.0.0.1:<port>] [options] -- <command> [args...]',
      '       mcp-bridge serve [--listen 127.0.0.1:<port>] [options] <url>',
      'Run "mcp-bridge --help" for the options.',
      '',
    ]);
  });

  it('mcp-bridge-vscode --version still says mcp-bridge-vscode', () => {
    const version = run(BRIDGE, ['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^mcp-bridge-vscode \d+\.\d+\.\d+\S*\n$/);
  });
});
