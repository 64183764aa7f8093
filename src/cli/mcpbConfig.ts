/**
 * The command line of the bridge in the Claude Desktop bundle (docs/install.md#install-mcpb),
 * from the values of its form: Claude Desktop puts each `user_config` value into a variable of
 * the server's environment (the manifest's `mcp_config.env`, scripts/mcpb.ts), and this builds
 * the bridge's arguments from them. The header's value stays in its variable, named by
 * `--header-env`, so it is never an argument; the token key goes to MCP_BRIDGE_TOKEN_KEY.
 */

/** The variables of the manifest, one per field of the form. */
export const MCPB_ENV = {
  upstream: 'MCP_BRIDGE_MCPB_UPSTREAM',
  headerName: 'MCP_BRIDGE_MCPB_HEADER_NAME',
  headerValue: 'MCP_BRIDGE_MCPB_HEADER_VALUE',
  account: 'MCP_BRIDGE_MCPB_ACCOUNT',
  tokenStore: 'MCP_BRIDGE_MCPB_TOKEN_STORE',
  tokenKey: 'MCP_BRIDGE_MCPB_TOKEN_KEY',
  logLevel: 'MCP_BRIDGE_MCPB_LOG_LEVEL',
} as const;

export type McpbStart =
  | {
      readonly kind: 'start';
      readonly argv: readonly string[];
      /** Variables to set before the bridge reads its environment. */
      readonly env: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'error'; readonly message: string };

/**
 * A field left empty: an empty string, or the placeholder itself when the host did not
 * substitute an optional field.
 */
const valueOf = (env: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === undefined || value === '' || /^\$\{user_config\.[A-Za-z0-9_]*\}$/.test(value)
    ? undefined
    : value;
};

/** The words of a command written in one field: blanks separate, "…" or '…' keep blanks. */
export const commandWords = (text: string): string[] =>
  [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');

/** The bridge's argv and extra environment for the form's values in `env`. */
export function mcpbStart(env: Readonly<Record<string, string | undefined>>): McpbStart {
  const upstream = valueOf(env, MCPB_ENV.upstream);
  if (upstream === undefined) {
    return {
      kind: 'error',
      message: 'the upstream server is missing: give its URL or its command in the settings',
    };
  }
  const options: string[] = [];
  const extra: Record<string, string> = {};
  const option = (name: string, variable: string): void => {
    const value = valueOf(env, variable);
    if (value !== undefined) options.push(`--${name}`, value);
  };
  option('log-level', MCPB_ENV.logLevel);
  const url = /^https?:\/\//i.test(upstream);
  if (url) {
    const headerName = valueOf(env, MCPB_ENV.headerName);
    if (headerName !== undefined && valueOf(env, MCPB_ENV.headerValue) !== undefined) {
      options.push('--header-env', `${headerName}=${MCPB_ENV.headerValue}`);
    }
    option('account', MCPB_ENV.account);
    option('token-store', MCPB_ENV.tokenStore);
    const key = valueOf(env, MCPB_ENV.tokenKey);
    if (key !== undefined) extra['MCP_BRIDGE_TOKEN_KEY'] = key;
  }
  const command = url ? [] : commandWords(upstream);
  return { kind: 'start', argv: url ? [...options, upstream] : [...options, '--', ...command], env: extra };
}
