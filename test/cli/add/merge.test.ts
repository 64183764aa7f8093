/**
 * Merging an entry into a client's file (docs/install.md#install-add): every other key and
 * comment stays, the same entry is left alone, a different one needs --force, a file that is
 * not what it should be is refused. The results are read back with jsonc-parser and smol-toml,
 * the parsers of VS Code's settings and a strict TOML 1.0 parser.
 */
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { mergeJson } from '../../../src/cli/add/jsonMerge.js';
import { mergeToml, tomlString } from '../../../src/cli/add/tomlMerge.js';

const ENTRY = { type: 'stdio', command: 'mcp-bridge', args: ['--', 'node', '/opt/files.js'] };

const VSCODE_FILE = `// My servers
{
    "inputs": [{ "type": "promptString", "id": "key", "password": true }],
    "servers": {
        /* the old one */
        "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" },
    },
}
`;

describe('mergeJson', () => {
  it('adds the entry to a JSONC file and keeps its comments, keys and indentation', () => {
    const result = mergeJson(VSCODE_FILE, 'servers', 'files', ENTRY, { force: false, comments: true });
    if (result.kind !== 'merged') throw new Error(result.kind);
    expect(result.replaced).toBe(false);
    expect(result.text).toContain('// My servers\n');
    expect(result.text).toContain('        /* the old one */\n');
    expect(result.text).toContain('        "files": {\n            "type": "stdio",');
    expect(parseJsonc(result.text)).toEqual({
      inputs: [{ type: 'promptString', id: 'key', password: true }],
      servers: {
        github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' },
        files: ENTRY,
      },
    });
  });

  it('adds the member after the last one without moving it, with the comma it lacks', () => {
    const text = '{\n\t"servers": {\n\t\t"files": { "command": "f" } // ours\n\t}\n}\n';
    const result = mergeJson(
      text,
      'servers',
      'more',
      { command: 'm', args: ['a'] },
      { force: false, comments: true },
    );
    expect(result).toEqual({
      kind: 'merged',
      text: '{\n\t"servers": {\n\t\t"files": { "command": "f" }, // ours\n\t\t"more": {\n\t\t\t"command": "m",\n\t\t\t"args": [\n\t\t\t\t"a"\n\t\t\t]\n\t\t}\n\t}\n}\n',
      replaced: false,
    });
  });

  it('creates the servers key in a file that has other settings only', () => {
    const text = '{\n  "numStartups": 12,\n  "projects": { "/w": { "allowedTools": [] } }\n}\n';
    const result = mergeJson(text, 'mcpServers', 'files', ENTRY, { force: false, comments: false });
    if (result.kind !== 'merged') throw new Error(result.kind);
    expect(JSON.parse(result.text)).toEqual({
      numStartups: 12,
      projects: { '/w': { allowedTools: [] } },
      mcpServers: { files: ENTRY },
    });
  });

  it('writes a whole file when there is none', () => {
    expect(mergeJson('', 'mcpServers', 'files', ENTRY, { force: false, comments: false })).toEqual({
      kind: 'merged',
      text: `{\n  "mcpServers": {\n    "files": {\n      "type": "stdio",\n      "command": "mcp-bridge",\n      "args": [\n        "--",\n        "node",\n        "/opt/files.js"\n      ]\n    }\n  }\n}\n`,
      replaced: false,
    });
  });

  it('leaves the same entry alone, and refuses a different one without --force', () => {
    const text = JSON.stringify({
      mcpServers: { files: { args: ENTRY.args, command: 'mcp-bridge', type: 'stdio' } },
    });
    expect(mergeJson(text, 'mcpServers', 'files', ENTRY, { force: false, comments: false })).toEqual({
      kind: 'same',
    });
    const other = JSON.stringify({ mcpServers: { files: { command: 'other' } } });
    expect(mergeJson(other, 'mcpServers', 'files', ENTRY, { force: false, comments: false })).toEqual({
      kind: 'conflict',
    });
    const forced = mergeJson(other, 'mcpServers', 'files', ENTRY, { force: true, comments: false });
    expect(forced.kind === 'merged' ? [forced.replaced, JSON.parse(forced.text)] : forced).toEqual([
      true,
      { mcpServers: { files: ENTRY } },
    ]);
  });

  it('refuses a strict JSON file with comments, a file that is not an object, and servers that are not one', () => {
    expect(mergeJson(VSCODE_FILE, 'servers', 'files', ENTRY, { force: false, comments: false })).toEqual({
      kind: 'invalid',
      message: 'it is not valid JSON (InvalidCommentToken on line 1)',
    });
    expect(mergeJson('[1]', 'servers', 'files', ENTRY, { force: false, comments: true })).toEqual({
      kind: 'invalid',
      message: 'it does not hold a JSON object',
    });
    expect(mergeJson('{"servers": []}', 'servers', 'files', ENTRY, { force: false, comments: true })).toEqual(
      {
        kind: 'invalid',
        message: 'its "servers" is not an object',
      },
    );
    expect(mergeJson('{"servers": {', 'servers', 'files', ENTRY, { force: false, comments: true })).toEqual({
      kind: 'invalid',
      message: 'it is not valid JSON with comments (CloseBraceExpected on line 1)',
    });
  });
});

const CODEX_FILE = `# Codex settings
model = "gpt-5-codex"

[mcp_servers.github] # the old one
command = "github-mcp"

[mcp_servers.files]
command = "old"
# a note on files

[mcp_servers.files.env]
LEVEL = "1"

[profiles.fast]
model = "gpt-5-mini" # fast
`;

const CODEX_ENTRY = {
  command: 'mcp-bridge',
  args: ['--header-env', 'X-Key=KEY', 'https://h.example/mcp'],
  env_vars: ['KEY'],
};

describe('mergeToml', () => {
  it('adds a table at the end and keeps the comments and the rest', () => {
    const result = mergeToml(CODEX_FILE, 'mcp_servers', 'remote', CODEX_ENTRY, false);
    if (result.kind !== 'merged') throw new Error(result.kind);
    expect(result.text).toBe(
      `${CODEX_FILE}\n[mcp_servers.remote]\ncommand = "mcp-bridge"\nargs = ["--header-env", "X-Key=KEY", "https://h.example/mcp"]\nenv_vars = ["KEY"]\n`,
    );
    expect(parseToml(result.text)).toEqual({
      model: 'gpt-5-codex',
      mcp_servers: {
        github: { command: 'github-mcp' },
        files: { command: 'old', env: { LEVEL: '1' } },
        remote: CODEX_ENTRY,
      },
      profiles: { fast: { model: 'gpt-5-mini' } },
    });
  });

  it('with --force replaces the table and its sub-tables, in place, and nothing else', () => {
    expect(mergeToml(CODEX_FILE, 'mcp_servers', 'files', CODEX_ENTRY, false)).toEqual({ kind: 'conflict' });
    const result = mergeToml(CODEX_FILE, 'mcp_servers', 'files', CODEX_ENTRY, true);
    if (result.kind !== 'merged') throw new Error(result.kind);
    expect(result.replaced).toBe(true);
    expect(result.text).toBe(`# Codex settings
model = "gpt-5-codex"

[mcp_servers.github] # the old one
command = "github-mcp"

[mcp_servers.files]
command = "mcp-bridge"
args = ["--header-env", "X-Key=KEY", "https://h.example/mcp"]
env_vars = ["KEY"]

[profiles.fast]
model = "gpt-5-mini" # fast
`);
  });

  it('leaves the same entry alone', () => {
    const text =
      '[mcp_servers.remote]\nenv_vars = ["KEY"]\ncommand = "mcp-bridge"\nargs = ["--header-env", "X-Key=KEY", "https://h.example/mcp"]\n';
    expect(mergeToml(text, 'mcp_servers', 'remote', CODEX_ENTRY, false)).toEqual({ kind: 'same' });
  });

  it('refuses a file that is not TOML, and an entry written as dotted keys even with --force', () => {
    expect(mergeToml('model = ', 'mcp_servers', 'x', CODEX_ENTRY, false)).toEqual({
      kind: 'invalid',
      message: 'it is not valid TOML',
    });
    const dotted = '[mcp_servers]\nfiles.command = "old"\n';
    expect(mergeToml(dotted, 'mcp_servers', 'files', CODEX_ENTRY, true)).toEqual({
      kind: 'invalid',
      message: 'its entry is not a [mcp_servers.files] table: edit it by hand',
    });
    const inline = 'mcp_servers = { github = { command = "g" } }\n';
    expect(mergeToml(inline, 'mcp_servers', 'files', CODEX_ENTRY, false)).toEqual({
      kind: 'invalid',
      message: 'the entry could not be merged into it without changing other keys',
    });
    expect(parseToml(inline)).toEqual({ mcp_servers: { github: { command: 'g' } } });
  });

  it('escapes what a TOML basic string must escape', () => {
    const text = 'a"b\\c\nd\te\u0001f\u007fg';
    expect(tomlString(text)).toBe('"a\\"b\\\\c\\nd\\te\\u0001f\\u007fg"');
    expect(parseToml(`v = ${tomlString(text)}`)).toEqual({ v: text });
  });
});
