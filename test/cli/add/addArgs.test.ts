/**
 * The command line of `add` (docs/install.md#install-add): the client, its own options, the
 * bridge's options checked by the bridge's own parse, and the refusals (a header value inline,
 * a scope the client has not, a name a client would not take).
 */
import { describe, expect, it } from 'vitest';
import { defaultName, parseAdd } from '../../../src/cli/add/addArgs.js';
import type { AddRequest } from '../../../src/cli/add/addArgs.js';
import { genericProfile } from '../../../src/profiles/generic.js';
import { vscodeProfile } from '../../../src/profiles/vscode.js';

const profileOf = (client: string) => (client === 'vscode' ? vscodeProfile : genericProfile);
const request = (args: string[]): AddRequest => {
  const parsed = parseAdd(args, '/home/ada/work', profileOf);
  if (parsed.kind !== 'add') throw new Error('not an add');
  return parsed.request;
};
const refusal = (args: string[]): string => {
  try {
    parseAdd(args, '/home/ada/work', profileOf);
  } catch (error) {
    return error instanceof Error ? error.message : 'not an Error';
  }
  return 'accepted';
};

describe('add arguments', () => {
  it('takes the client, its options and the command after "--"', () => {
    expect(
      request(['codex', '--name', 'files', '--scope', 'project', '--', 'node', '/opt/files.js']),
    ).toEqual({
      client: 'codex',
      name: 'files',
      scope: 'project',
      force: false,
      print: false,
      bridgeArgv: ['--', 'node', '/opt/files.js'],
      envVars: [],
    });
  });

  it('keeps the bridge options in the entry and names the variables of --header-env and --pass-env', () => {
    expect(
      request([
        'claude-code',
        '--header-env=X-Api-Key=API_TOKEN',
        '--log-level',
        'debug',
        '--pass-env',
        'MCP_BRIDGE_TOKEN_KEY',
        '--force',
        'https://mcp.example.com/mcp',
      ]),
    ).toEqual({
      client: 'claude-code',
      name: 'mcp-example-com',
      scope: 'user',
      force: true,
      print: false,
      bridgeArgv: [
        '--header-env',
        'X-Api-Key=API_TOKEN',
        '--log-level',
        'debug',
        'https://mcp.example.com/mcp',
      ],
      envVars: ['API_TOKEN', 'MCP_BRIDGE_TOKEN_KEY'],
    });
  });

  it('makes the files of --token-key-file and --bridge absolute: the client starts the bridge elsewhere', () => {
    const parsed = request([
      'gemini',
      '--bridge',
      './bin/mcp-bridge',
      '--token-key-file',
      'keys/token.key',
      'https://h.example/mcp',
    ]);
    expect(parsed.bridge).toBe('/home/ada/work/bin/mcp-bridge');
    expect(parsed.bridgeArgv).toEqual([
      '--token-key-file',
      '/home/ada/work/keys/token.key',
      'https://h.example/mcp',
    ]);
    expect(request(['gemini', '--bridge', 'mcp-bridge', '--', 'x']).bridge).toBe('mcp-bridge');
  });

  it('refuses --header: its value would be written into the file', () => {
    expect(refusal(['vscode', '--header', 'Authorization: Bearer SECRET-1', 'https://h.example/mcp'])).toBe(
      "--header would write its value into the client's file: give --header-env <name>=<VAR>",
    );
  });

  it('refuses what the bridge itself refuses, in its words', () => {
    expect(refusal(['codex', '--header-env', 'X-Key=KEY', '--', 'node', 's.js'])).toBe(
      'the option --header-env cannot be used here: it applies only to the URL of an upstream server, not to an upstream command',
    );
    expect(refusal(['codex', '--token-store', 'drawer', 'https://h.example/mcp'])).toBe(
      'the value of --token-store is not valid: give auto, keychain, file or memory',
    );
    expect(refusal(['codex', '--listen', '0.0.0.0:1', '--', 'x'])).toBe(
      'the option --listen is only for the serve command',
    );
  });

  it('refuses a missing client, upstream, scope or name, and an unknown option', () => {
    expect(refusal([])).toBe(
      'add needs a client first: vscode, claude-code, claude-desktop, codex, gemini, copilot',
    );
    expect(refusal(['cursor', '--', 'x'])).toBe(
      'add needs a client first: vscode, claude-code, claude-desktop, codex, gemini, copilot',
    );
    expect(refusal(['codex'])).toBe('the upstream is missing: give its URL, or "--" and its command');
    expect(refusal(['codex', '--'])).toBe('the upstream is missing: give its URL, or "--" and its command');
    expect(refusal(['claude-desktop', '--scope', 'project', '--', 'x'])).toBe(
      'Claude Desktop has no project scope: give --scope user',
    );
    expect(refusal(['codex', '--scope', 'local', '--', 'x'])).toBe('--scope is user or project');
    expect(refusal(['codex', '--name', 'my server', '--', 'x'])).toBe(
      '--name is 1 to 64 of A-Z a-z 0-9 _ -, starting with a letter',
    );
    expect(refusal(['codex', '--pass-env', 'A-B', '--', 'x'])).toBe(
      '--pass-env takes the name of an environment variable (A-Z a-z 0-9 _)',
    );
    expect(refusal(['codex', '--header-env', 'X-Key=$KEY', 'https://h.example/mcp'])).toBe(
      '--header-env takes <name>=<VAR>, VAR the name of an environment variable (A-Z a-z 0-9 _)',
    );
    expect(refusal(['codex', '--sneaky', '--', 'x'])).toBe('the option --sneaky is not known to add');
    expect(refusal(['codex', '--print=yes', '--', 'x'])).toBe('the option --print takes no value');
    expect(refusal(['codex', 'https://h.example/mcp', 'extra'])).toBe(
      'an argument is not an option: give the options, then the URL or "--" and the command',
    );
  });

  it('answers --help before anything else', () => {
    expect(parseAdd(['--help'], '/', profileOf)).toEqual({ kind: 'help' });
    expect(parseAdd(['codex', '--help'], '/', profileOf)).toEqual({ kind: 'help' });
  });

  it('names an entry after the command file or the host, as a client takes it', () => {
    expect(defaultName('/opt/mcp/files-server.js', undefined)).toBe('files-server');
    expect(defaultName('C:\\tools\\git.mcp.exe', undefined)).toBe('git-mcp');
    expect(defaultName(undefined, 'https://mcp.example.com:8443/x')).toBe('mcp-example-com');
    expect(defaultName(undefined, 'http://127.0.0.1:3000/mcp')).toBe('mcp-bridge');
  });
});
