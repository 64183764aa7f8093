/**
 * `mcp-bridge add` as the built executable runs it (docs/install.md#install-add), in a throwaway
 * home: for each client the file it writes is read back with a parser of that format
 * (jsonc-parser, JSON.parse, smol-toml), holds the literal entry, and the entry, started as the
 * client starts it, is a bridge that answers `initialize`. The real clients' own parsers were
 * run by hand (docs/install.md#install-add); they are not installed by `npm ci`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE, GENERIC_BRIDGE, handshake } from '../helpers/bridgeProcess.js';
import { spawnPeer } from '../helpers/rawPeer.js';

const home = mkdtempSync(join(tmpdir(), 'add-home-'));
const project = join(home, 'project');
mkdirSync(project);
afterAll(() => rmSync(home, { recursive: true, force: true }));

const env = {
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: '',
  CLAUDE_CONFIG_DIR: '',
  CODEX_HOME: '',
  COPILOT_HOME: '',
};
const add = (args: string[]) =>
  spawnSync(process.execPath, [GENERIC_BRIDGE, 'add', ...args], {
    cwd: project,
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });

const UPSTREAM = ['--', process.execPath, FIXTURE];
const ARGS = ['--log-level', 'debug', ...UPSTREAM];
const SERVER = [
  '--bridge',
  GENERIC_BRIDGE,
  '--pass-env',
  'FIXTURE_MARK',
  '--name',
  'fixture',
  '--log-level',
  'debug',
  ...UPSTREAM,
];

/** Each client: its file, how to read it, and the entry it must hold. */
const CASES = [
  {
    client: 'vscode',
    file: '.config/Code/User/mcp.json',
    read: (text: string) => (parseJsonc(text) as { servers: Record<string, unknown> }).servers,
    entry: {
      type: 'stdio',
      command: GENERIC_BRIDGE,
      args: ARGS,
      env: { FIXTURE_MARK: '${env:FIXTURE_MARK}' },
    },
  },
  {
    client: 'claude-code',
    file: '.claude.json',
    read: (text: string) => (JSON.parse(text) as { mcpServers: Record<string, unknown> }).mcpServers,
    entry: { type: 'stdio', command: GENERIC_BRIDGE, args: ARGS, env: { FIXTURE_MARK: '${FIXTURE_MARK}' } },
  },
  {
    client: 'claude-desktop',
    file: '.config/Claude/claude_desktop_config.json',
    read: (text: string) => (JSON.parse(text) as { mcpServers: Record<string, unknown> }).mcpServers,
    entry: { command: GENERIC_BRIDGE, args: ARGS },
  },
  {
    client: 'codex',
    file: '.codex/config.toml',
    read: (text: string) => (parseToml(text) as { mcp_servers: Record<string, unknown> }).mcp_servers,
    entry: { command: GENERIC_BRIDGE, args: ARGS, env_vars: ['FIXTURE_MARK'] },
  },
  {
    client: 'gemini',
    file: '.gemini/settings.json',
    read: (text: string) => (parseJsonc(text) as { mcpServers: Record<string, unknown> }).mcpServers,
    entry: { command: GENERIC_BRIDGE, args: ARGS, env: { FIXTURE_MARK: '${FIXTURE_MARK}' } },
  },
  {
    client: 'copilot',
    file: '.copilot/mcp-config.json',
    read: (text: string) => (JSON.parse(text) as { mcpServers: Record<string, unknown> }).mcpServers,
    entry: {
      type: 'local',
      command: GENERIC_BRIDGE,
      args: ARGS,
      env: { FIXTURE_MARK: '${FIXTURE_MARK}' },
      tools: ['*'],
    },
  },
] as const;

describe('mcp-bridge add', () => {
  it.each(CASES)(
    '$client: writes the entry in its file, and the entry starts a bridge',
    async ({ client, file, read, entry }) => {
      const result = add([client, ...SERVER]);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const path = join(home, file);
      expect(result.stdout.split('\n')[0]).toMatch(
        new RegExp(`^added "fixture" in ${path.replace(/[.]/g, '\\.')} \\(`),
      );
      const written = read(readFileSync(path, 'utf8'))['fixture'] as { command: string; args: string[] };
      expect(written).toEqual(entry);
      // Started as the client starts it: the command with its arguments.
      const peer = spawnPeer(written.command, written.args, env);
      const response = await handshake(peer);
      expect(response).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
      peer.closeStdin();
      expect((await peer.exit).code).toBe(0);
      // Again: the same entry is left alone.
      const again = add([client, ...SERVER]);
      expect([again.status, again.stdout]).toEqual([0, `"fixture" is in ${path} already, unchanged\n`]);
    },
  );

  it('keeps the keys and comments of a file, and changes nothing when the name is taken', () => {
    const file = join(project, '.vscode', 'mcp.json');
    mkdirSync(join(project, '.vscode'));
    const before =
      '// team servers\n{\n\t"servers": {\n\t\t"files": { "type": "stdio", "command": "files-mcp" }, // ours\n\t},\n}\n';
    writeFileSync(file, before);
    const taken = add(['vscode', '--scope', 'project', '--name', 'files', '--', 'other-mcp']);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toBe(
      `mcp-bridge: add: error: ${file} has another entry named "files": give --force to replace it, or another --name\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
    const added = add(['vscode', '--scope', 'project', '--name', 'more', '--', 'other-mcp']);
    expect(added.status).toBe(0);
    const after = readFileSync(file, 'utf8');
    expect(
      after.startsWith(
        '// team servers\n{\n\t"servers": {\n\t\t"files": { "type": "stdio", "command": "files-mcp" }, // ours\n',
      ),
    ).toBe(true);
    expect(parseJsonc(after)).toEqual({
      servers: {
        files: { type: 'stdio', command: 'files-mcp' },
        more: {
          type: 'stdio',
          command: 'npx',
          args: ['-y', '-p', `mcp-bridge-sdk@${version()}`, 'mcp-bridge-vscode', '--', 'other-mcp'],
        },
      },
    });
  });

  it('--print shows the entry and writes nothing', () => {
    const result = add([
      'codex',
      '--scope',
      'project',
      '--print',
      '--header-env',
      'X-Api-Key=API_KEY',
      'https://mcp.example.com/mcp',
    ]);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(
      `[mcp_servers.mcp-example-com]\ncommand = "npx"\nargs = ["-y", "-p", "mcp-bridge-sdk@${version()}", "mcp-bridge", "--header-env", "X-Api-Key=API_KEY", "https://mcp.example.com/mcp"]\nenv_vars = ["API_KEY"]\n`,
    );
    expect(() => readFileSync(join(project, '.codex', 'config.toml'))).toThrow(/ENOENT/);
  });

  it('refuses a header value with exit code 2, and never echoes it', () => {
    const result = add([
      'gemini',
      '--header',
      'Authorization: Bearer SECRET-TOKEN-1',
      'https://mcp.example.com/mcp',
    ]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      "mcp-bridge: add: error: --header would write its value into the client's file: give --header-env <name>=<VAR>\n" +
        'Run "mcp-bridge add --help" for the clients and options.\n',
    );
    expect(result.stdout).toBe('');
  });

  it('refuses a file that is not JSON, and leaves it as it is', () => {
    mkdirSync(join(project, '.github'));
    const file = join(project, '.github', 'mcp.json');
    const broken = '{"mcpServers": {"fixture": ';
    writeFileSync(file, broken);
    const result = add(['copilot', '--scope', 'project', '--name', 'other', '--', 'x']);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `mcp-bridge: add: error: ${file} is left as it is: it is not valid JSON (ValueExpected on line 1)\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe(broken);
  });
});

function version(): string {
  return (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
}
