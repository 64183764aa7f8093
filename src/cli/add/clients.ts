/**
 * The clients `add` writes to, each with its own file, key and entry shape (docs/install.md#install-add).
 * Secrets never go into an entry: the bridge reads them from environment variables
 * (`--header-env`, `--pass-env`), and each entry names those variables in the client's own
 * syntax for a reference, so that the file holds the name and the client's environment the value.
 */

/** The clients, in the order of `--help`. */
export const CLIENTS = ['vscode', 'claude-code', 'claude-desktop', 'codex', 'gemini', 'copilot'] as const;
export type ClientName = (typeof CLIENTS)[number];
export type Scope = 'user' | 'project';

/** How the client starts the bridge: the command, its arguments, the variables it must pass on. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  /** Names of environment variables the bridge reads (never their values). */
  readonly envVars: readonly string[];
}

export type Entry = Readonly<Record<string, unknown>>;

export interface ClientSpec {
  /** The client's name in messages. */
  readonly title: string;
  /** JSON with comments (jsonc), strict JSON, or TOML. */
  readonly format: 'jsonc' | 'json' | 'toml';
  /** The top-level key whose members are the servers. */
  readonly key: string;
  readonly scopes: readonly Scope[];
  /** The executable of the package for this client: the VS Code profile, or the generic one. */
  readonly executable: 'mcp-bridge-vscode' | 'mcp-bridge';
  readonly entry: (launch: Launch) => Entry;
  /** Said after the entry is written when it names variables the client does not pass on by itself. */
  readonly envNote?: string;
}

/** `{ VAR: <reference to VAR> }`, or nothing when there is no variable. */
const envOf = (launch: Launch, reference: (name: string) => string): Entry =>
  launch.envVars.length === 0
    ? {}
    : { env: Object.fromEntries(launch.envVars.map((name) => [name, reference(name)])) };

/** `${VAR}`: the reference of Claude Code, Gemini CLI and the Copilot CLI. */
const braced = (name: string): string => `\${${name}}`;

const commandOf = (launch: Launch): Entry => ({ command: launch.command, args: [...launch.args] });

export const CLIENT_SPECS: Readonly<Record<ClientName, ClientSpec>> = {
  // VS Code's mcp.json: "servers", `${env:VAR}` is its variable syntax for the environment.
  vscode: {
    title: 'VS Code',
    format: 'jsonc',
    key: 'servers',
    scopes: ['user', 'project'],
    executable: 'mcp-bridge-vscode',
    entry: (launch) => ({
      type: 'stdio',
      ...commandOf(launch),
      ...envOf(launch, (name) => `\${env:${name}}`),
    }),
  },
  // Claude Code's .mcp.json and ~/.claude.json: "mcpServers", `${VAR}` expanded in env.
  'claude-code': {
    title: 'Claude Code',
    format: 'json',
    key: 'mcpServers',
    scopes: ['user', 'project'],
    executable: 'mcp-bridge',
    entry: (launch) => ({ type: 'stdio', ...commandOf(launch), ...envOf(launch, braced) }),
  },
  // Claude Desktop expands no variables in its file: the bridge reads them from the environment
  // Claude Desktop was started with; the bundle (.mcpb) keeps secrets in the OS keychain instead.
  'claude-desktop': {
    title: 'Claude Desktop',
    format: 'json',
    key: 'mcpServers',
    scopes: ['user'],
    executable: 'mcp-bridge',
    entry: commandOf,
    envNote:
      'Claude Desktop passes on no variable by name: the bridge reads them from the environment Claude ' +
      'Desktop was started with (or install the bundle mcp-bridge.mcpb, whose form keeps secrets in ' +
      'the keychain)',
  },
  // Codex's config.toml: [mcp_servers.<name>], `env_vars` passes variables on by name.
  codex: {
    title: 'Codex',
    format: 'toml',
    key: 'mcp_servers',
    scopes: ['user', 'project'],
    executable: 'mcp-bridge',
    entry: (launch) => ({
      ...commandOf(launch),
      ...(launch.envVars.length === 0 ? {} : { env_vars: [...launch.envVars] }),
    }),
  },
  // Gemini CLI's settings.json (comments allowed): "mcpServers", `${VAR}` expanded in env; Gemini
  // CLI withholds variables that look like secrets unless env names them.
  gemini: {
    title: 'Gemini CLI',
    format: 'jsonc',
    key: 'mcpServers',
    scopes: ['user', 'project'],
    executable: 'mcp-bridge',
    entry: (launch) => ({ ...commandOf(launch), ...envOf(launch, braced) }),
  },
  // The Copilot CLI's mcp-config.json: "mcpServers", a local server with the tools it may call.
  copilot: {
    title: 'GitHub Copilot CLI',
    format: 'json',
    key: 'mcpServers',
    scopes: ['user', 'project'],
    executable: 'mcp-bridge',
    entry: (launch) => ({
      type: 'local',
      ...commandOf(launch),
      ...envOf(launch, braced),
      tools: ['*'],
    }),
  },
};

export const isClientName = (text: string): text is ClientName => CLIENTS.some((name) => name === text);
