/**
 * The options that only `serve` takes (docs/cli.md#cli-serve): where the HTTP front end listens,
 * which browser origins may call it, its bearer token (`--auth-token-file` or the environment
 * variable MCP_BRIDGE_SERVE_TOKEN) and its limits. A listen address other than loopback needs the
 * token (docs/serve.md#serve-security). Diagnostics never hold a value of the token.
 */
import { readFileSync, statSync } from 'node:fs';
import { parseArgv } from './argvParse.js';
import { decimal, envValue, last, nonEmpty, rangeHint } from './optionValues.js';
import type { Values } from './optionValues.js';
import { notRegularFile } from './regularFile.js';
import { UsageError } from './usageError.js';
import { isLoopback } from '../edges/httpFront/rules.js';

/** The environment variable of the bearer token. */
export const SERVE_TOKEN_ENV = 'MCP_BRIDGE_SERVE_TOKEN';

export interface HttpServeOptions {
  readonly host: string;
  readonly port: number;
  readonly allowOrigins: readonly string[];
  readonly token?: string;
  readonly maxSessions?: number;
  readonly maxPending?: number;
  readonly maxInFlight?: number;
  readonly maxBodyBytes?: number;
  readonly sessionIdleMs?: number;
  readonly bodyTimeoutMs?: number;
  readonly maxConnections?: number;
  readonly maxSessionBufferBytes?: number;
  /** `--metrics`: GET /metrics (docs/observability.md#observability-metrics). */
  readonly metrics?: boolean;
}

/** `<host>:<port>` with an IPv4 address, a name, or `[v6]`; port 0 takes a free one. */
function listenAddress(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text);
  if (match === null) return undefined;
  const port = Number(match[3]);
  if (port > 65_535) return undefined;
  return { host: match[1] ?? match[2]!, port };
}

/** An origin as browsers send it: scheme, host and optional port, no path. */
const origin = (text: string): string | undefined =>
  /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(text)
    ? text
    : undefined;

/**
 * The rule of a serve token (docs/serve.md#serve-security): at least 32 characters of RFC 6750's
 * `b64token` (letters, digits, `-._~+/`, `=` at the end), so 128 bits at least when it is hex
 * (`openssl rand -hex 16`) and more as base64 (`openssl rand -base64 24`).
 */
export const MIN_TOKEN_CHARS = 32;
const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Why `token` is not a serve token, or undefined; never names the token. */
function weakToken(token: string): string | undefined {
  if (!TOKEN_SYNTAX.test(token)) return 'it has characters other than letters, digits and -._~+/=';
  if (token.length < MIN_TOKEN_CHARS)
    return `it has ${token.length} characters; at least ${MIN_TOKEN_CHARS} are needed (128 bits as hex)`;
  return undefined;
}

/**
 * Why the token file may not be used, or undefined: it must be the user's own and not open to
 * others (another user of the machine must not read or replace it; POSIX only).
 */
function exposedFile(file: string): string | undefined {
  if (typeof process.getuid !== 'function') return undefined;
  const info = statSync(file, { throwIfNoEntry: false });
  if (info === undefined) return undefined; // the read names it
  if (info.uid !== process.getuid()) return 'it belongs to another user';
  if ((info.mode & 0o077) !== 0) return 'other users may read or write it (chmod 600 it)';
  return undefined;
}

/** The one line of a token file: a trailing newline is fine, a second line is not. */
function oneTokenLine(text: string): string | undefined {
  const line = text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
  return /[\r\n]/.test(line) ? undefined : line;
}

function tokenOf(values: Values, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const file = last(values, 'auth-token-file', nonEmpty, 'it must not be empty');
  if (file === undefined) {
    const token = envValue(env, SERVE_TOKEN_ENV);
    const weak = token === undefined ? undefined : weakToken(token);
    if (weak !== undefined) throw new UsageError(`the token of ${SERVE_TOKEN_ENV} is not valid: ${weak}`);
    return token;
  }
  const why = notRegularFile(file) ?? exposedFile(file);
  if (why !== undefined) throw new UsageError(`the value of --auth-token-file is not valid: ${why}`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError('the file of --auth-token-file cannot be read');
  }
  if (text.trim() === '') throw new UsageError('the file of --auth-token-file is empty');
  const token = oneTokenLine(text);
  if (token === undefined) throw new UsageError('the file of --auth-token-file has more than one line');
  const weak = weakToken(token);
  if (weak !== undefined) throw new UsageError(`the token of --auth-token-file is not valid: ${weak}`);
  return token;
}

/** The serve-only options of `argv` (the arguments after the word `serve`). */
export function httpServeOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  program: string,
): HttpServeOptions {
  const { values } = parseArgv(argv, program);
  const listen = last(values, 'listen', listenAddress, 'give <address>:<port>, such as 127.0.0.1:8808');
  const allowOrigins = values('allow-origin').map((text) => {
    if (origin(text) === undefined) {
      throw new UsageError(
        'the value of --allow-origin is not valid: give an origin such as https://vscode.dev',
      );
    }
    return text;
  });
  const token = tokenOf(values, env);
  const host = listen?.host ?? '127.0.0.1';
  if (!isLoopback(host) && token === undefined) {
    throw new UsageError(
      `a listen address other than loopback needs a token: give --auth-token-file, or set ${SERVE_TOKEN_ENV}`,
    );
  }
  const count = (name: 'max-sessions' | 'max-requests' | 'max-session-requests'): number | undefined =>
    last(values, name, decimal(1_000_000), rangeHint(1_000_000, 'items'));
  const maxSessions = count('max-sessions');
  const maxPending = count('max-requests');
  const maxInFlight = count('max-session-requests');
  const maxBodyBytes = last(
    values,
    'max-body-bytes',
    decimal(1_073_741_824),
    rangeHint(1_073_741_824, 'bytes'),
  );
  const idle = last(values, 'session-idle', decimal(31_536_000), rangeHint(31_536_000, 'seconds'));
  const bodyTimeoutMs = last(
    values,
    'body-timeout',
    decimal(2_147_483_647),
    rangeHint(2_147_483_647, 'milliseconds'),
  );
  const maxConnections = last(values, 'max-connections', decimal(1_000_000), rangeHint(1_000_000, 'items'));
  const maxSessionBufferBytes = last(
    values,
    'max-session-buffer-bytes',
    decimal(1_073_741_824),
    rangeHint(1_073_741_824, 'bytes'),
  );
  return {
    host,
    port: listen?.port ?? 0,
    allowOrigins,
    ...(token === undefined ? {} : { token }),
    ...(maxSessions === undefined ? {} : { maxSessions }),
    ...(maxPending === undefined ? {} : { maxPending }),
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
    ...(idle === undefined ? {} : { sessionIdleMs: idle * 1000 }),
    ...(bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs }),
    ...(maxConnections === undefined ? {} : { maxConnections }),
    ...(maxSessionBufferBytes === undefined ? {} : { maxSessionBufferBytes }),
    ...(values('metrics').length > 0 ? { metrics: true } : {}),
  };
}
