/**
 * The browser opener of the first sign-in (docs/sign-in.md#sign-in-consent, docs/security.md#security-rules items 2, 11, 14): it
 * gets only the one-time start URL (never `state` or `code_challenge`), as one argument of one
 * program, and never through a shell, so that nothing in a URL can become a command (the
 * command-injection hole of a peer).
 */
import { spawn } from 'node:child_process';
import type { Logger } from '../ports/logger.js';

/** Removed from the opener's environment besides the caller's `secretVariables` (docs/sign-in.md#sign-in-browser). */
const ALWAYS_SECRET = ['MCP_BRIDGE_TOKEN_KEY', 'MCP_BRIDGE_CLIENT_SECRET'];
/** docs/sign-in.md#sign-in-browser: the bridge waits up to 3 s for the opener to exit. */
export const OPENER_WAIT_MS = 3_000;
/**
 * What the opener may get: an http(s) URL of visible ASCII. A URL that starts with `-` would be an
 * option of `open`/`xdg-open`, and whitespace would be split by some openers; the start URL the
 * receiver builds never has either, so this only guards against a caller's mistake.
 */
const OPENABLE = /^https?:\/\/[\x21-\x7e]+$/;
const SCOPE = 'oauth';
const DID_NOT_OPEN = 'the browser did not open: open the URL of the sign-in line in a browser';

export interface OpenerCommand {
  /** The program: run directly, never by a shell. */
  readonly file: string;
  /** The start URL is the last and only variable argument. */
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

export interface OpenerOptions {
  readonly env: NodeJS.ProcessEnv;
  /** The `--header-env` variables (and any other secret the caller knows of). */
  readonly secretVariables: readonly string[];
  readonly platform?: NodeJS.Platform;
}

/**
 * The program, arguments and environment of the opener (pure; tested for every platform).
 *
 * - POSIX: `$BROWSER` when set and not empty, else `open` (macOS) or `xdg-open`. `$BROWSER` is one
 *   program path (or a name looked up in `PATH`), never a shell command line: a value with spaces
 *   or `%s` (the old `BROWSER="firefox %s:lynx"` convention) is taken as one path, which then
 *   likely does not exist and the opener fails visibly, rather than being parsed by a shell.
 * - Windows: `%SystemRoot%\System32\rundll32.exe url.dll,FileProtocolHandler <url>`, by its full
 *   path (no `PATH` lookup). It hands the URL to `ShellExecute` with the URL's protocol handler,
 *   the API the reference calls (docs/sign-in.md#sign-in-consent `ShellExecuteW`), without `cmd.exe`. Not `explorer.exe
 *   <url>`: explorer parses its command line for its own switches (`/select,`, `/root,`, commas),
 *   and it exits with 1 also on success, so a failure could not be told apart.
 * - The environment is the given one without `MCP_BRIDGE_TOKEN_KEY`, `MCP_BRIDGE_CLIENT_SECRET`
 *   and the secret variables, compared case-insensitively (Windows names are case-insensitive,
 *   and dropping a same-named variable of another case on POSIX costs nothing).
 */
export function openerCommand(startUrl: string, options: OpenerOptions): OpenerCommand {
  const platform = options.platform ?? process.platform;
  const secret = new Set([...ALWAYS_SECRET, ...options.secretVariables].map((name) => name.toUpperCase()));
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(options.env)) {
    if (!secret.has(name.toUpperCase())) env[name] = value;
  }
  if (platform === 'win32') {
    const root = lookup(options.env, 'SystemRoot') ?? 'C:\\Windows';
    return { file: `${root}\\System32\\rundll32.exe`, args: ['url.dll,FileProtocolHandler', startUrl], env };
  }
  const browser = options.env['BROWSER'];
  const file =
    browser !== undefined && browser !== '' ? browser : platform === 'darwin' ? 'open' : 'xdg-open';
  return { file, args: [startUrl], env };
}

/** A variable by a case-insensitive name (Windows). */
function lookup(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const key = Object.keys(env).find((candidate) => candidate.toUpperCase() === name.toUpperCase());
  const value = key === undefined ? undefined : env[key];
  return value === '' ? undefined : value;
}

/**
 * Starts the opener for the start URL; true when it exited with 0 or still runs after `waitMs`
 * (a browser started as `$BROWSER` may stay), false after a logged failure (docs/sign-in.md#sign-in-consent lines, then
 * `the browser did not open: …`). Whether that fails the sign-in (`browser_launch_failed`) is the
 * caller's decision: the sign-in line already shows the URL.
 */
export function openBrowser(
  startUrl: string,
  options: OpenerOptions & { readonly logger: Logger; readonly waitMs?: number },
): Promise<boolean> {
  const { logger } = options;
  const failed = (line: string): boolean => {
    logger.log(SCOPE, 'warn', line);
    logger.log(SCOPE, 'warn', DID_NOT_OPEN);
    return false;
  };
  if (!OPENABLE.test(startUrl)) {
    return Promise.resolve(
      failed('the bridge cannot start the browser opener: the start URL is not an http URL'),
    );
  }
  const command = openerCommand(startUrl, options);
  return new Promise<boolean>((resolve) => {
    let done = false;
    const finish = (opened: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(opened);
    };
    const child = spawn(command.file, [...command.args], {
      env: command.env,
      // docs/sign-in.md#sign-in-consent: stdin and stdout to null; stdout is the JSON-RPC channel of the bridge.
      stdio: ['ignore', 'ignore', 'inherit'],
      shell: false,
      windowsHide: true,
    });
    const timer = setTimeout(() => {
      // Still running: a browser started directly may stay open; the bridge does not wait for it.
      child.unref();
      finish(true);
    }, options.waitMs ?? OPENER_WAIT_MS);
    child.once('error', (error: NodeJS.ErrnoException) =>
      finish(failed(`the bridge cannot start the browser opener: ${error.code ?? error.message}`)),
    );
    child.once('exit', (code) =>
      finish(code === 0 ? true : failed('the browser opener stopped with an error')),
    );
  });
}
