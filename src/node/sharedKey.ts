/**
 * The sharing key of a child upstream of the shared bridge (docs/shared.md#sharing-key): argv, cwd
 * and the environment minus the variables that every client sets per process, so two windows with
 * the same entry share one upstream and two entries that differ in a secret never do. Only the
 * sha256 of the key is ever shown or logged: the key holds environment values.
 */
import { createHash } from 'node:crypto';

/**
 * Exact names left out of the key: set per process or per terminal, not by the entry. Claude Code
 * gives every server it starts its own session id, and inside an editor's terminal the port of
 * that window's editor connection (seen with Claude Code 2.1.197, docs/shared.md#sharing-key).
 */
const PER_PROCESS_NAMES = new Set([
  'COLORTERM',
  'WINDOWID',
  'SHLVL',
  'PWD',
  'OLDPWD',
  '_',
  'SSH_TTY',
  'MCP_BRIDGE_SHARED',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_CODE_SSE_PORT',
]);

/** Name prefixes left out of the key. */
const PER_PROCESS_PREFIXES = ['VSCODE_', 'ELECTRON_', 'TERM', 'TMUX'];

/** Whether a variable is left out of the sharing key. */
export function isPerProcessVariable(name: string): boolean {
  return PER_PROCESS_NAMES.has(name) || PER_PROCESS_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** The sha256 (hex) of the key of a child upstream: argv, cwd and the kept environment, sorted. */
export function childSharingKeyHash(
  argv: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return createHash('sha256')
    .update(JSON.stringify({ argv, cwd, env: keptEnvironment(env) }))
    .digest('hex');
}

/** The environment as the key holds it: the kept variables, sorted by name. */
function keptEnvironment(env: Readonly<Record<string, string | undefined>>): [string, string][] {
  return Object.entries(env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && !isPerProcessVariable(entry[0]))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The sha256 (hex) of the key of any upstream of the shared bridge: `parts` (the argv and cwd of a
 * child or the URL, its headers and account, and the options that cannot be per session:
 * docs/shared.md#sharing-key) with the kept environment.
 */
export function sharingKeyHash(
  parts: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return createHash('sha256')
    .update(JSON.stringify({ ...parts, env: keptEnvironment(env) }))
    .digest('hex');
}

/** The prefix of a key hash that `shared status` and the joined line show. */
export const keyPrefix = (key: string): string => key.slice(0, 12);
