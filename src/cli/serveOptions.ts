/**
 * The options of the serve forms (docs/cli.md#cli-forms, docs/http-upstream.md#http-url-rules,
 * docs/http-upstream.md#http-headers): an upstream command after `--` or the URL of an upstream
 * server, the limits, the headers and, for a URL, the sign-in.
 */
import type { LogLevel } from '../ports/logger.js';
import { parseArgv } from './argvParse.js';
import { caFileOption, checkForm, logLevelOption } from './formOptions.js';
import { parseHeaders, type HeaderSetting } from './headers.js';
import {
  DEFAULTS,
  MAX_BYTES,
  MAX_SECONDS,
  MAX_WAIT_MS,
  backoffInOrder,
  decimal,
  last,
  rangeHint,
} from './optionValues.js';
import { parseSignInOptions, refuseSignInOptions, type SignInOptions } from './signInArgs.js';
import { checkUpstreamUrl } from './urlRules.js';
import { UsageError } from './usageError.js';
import type { Profile } from '../profiles/profile.js';

export type Upstream =
  | { readonly kind: 'command'; readonly argv: readonly string[] }
  | { readonly kind: 'url'; readonly url: string };

export interface ServeOptions {
  readonly upstream: Upstream;
  /** `--name`; when absent the bridge falls back to the command's file name or the URL host (docs/lifecycle.md#lifecycle-initialize-result). */
  readonly name?: string;
  readonly logLevel: LogLevel;
  readonly discoverTimeoutMs: number;
  readonly maxLineBytes: number;
  /** `--listen-backoff`: the first wait before a lost listen stream opens again, in ms; absent: the bridge's default. */
  readonly listenBackoffMs?: number;
  /** `--listen-max-backoff`: the longest of those waits, in ms; absent: the bridge's default. */
  readonly listenMaxBackoffMs?: number;
  /** `--header` (secret: false) and `--header-env` (secret: true) in that order; URL form only. */
  readonly headers: readonly HeaderSetting[];
  readonly maxResponseBytes: number;
  /** The path of `--ca-file`. */
  readonly caFile?: string;
  /** The PEM text of `--ca-file`, already checked by loadCaFile. */
  readonly caPem?: string;
  /** Warnings for stderr (scope `vscode`): names only, never values. */
  readonly warnings: readonly string[];
  /**
   * The sign-in of a URL upstream; absent for a command, and when a static
   * `authorization` header turns the sign-in off (docs/http-upstream.md#http-headers).
   */
  readonly signIn?: SignInOptions;
}

/** The options of `[options] <url>` and `[options] -- <command>`. */
export function serveOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  profile: Profile,
): ServeOptions {
  const { values, url, command } = parseArgv(argv, profile.name);
  if (url === undefined && command.length === 0) {
    throw new UsageError(
      'the upstream server is missing: give its URL, or put the upstream command after "--"',
    );
  }
  checkForm(values, url === undefined ? 'command' : 'url');
  if (url === undefined) {
    if (command[0] === '') throw new UsageError('the upstream command is not valid: its name is empty');
  }
  const name = last(values, 'name', (text) => (text === '' ? undefined : text), 'it must not be empty');
  const logLevel = logLevelOption(values);
  const seconds = last(values, 'discover-timeout', decimal(MAX_SECONDS), rangeHint(MAX_SECONDS, 'seconds'));
  const maxLineBytes = last(values, 'max-line-bytes', decimal(MAX_BYTES), rangeHint(MAX_BYTES, 'bytes'));
  const maxResponseBytes = last(
    values,
    'max-response-bytes',
    decimal(MAX_BYTES),
    rangeHint(MAX_BYTES, 'bytes'),
  );
  const waitHint = rangeHint(MAX_WAIT_MS, 'milliseconds');
  const listenBackoffMs = last(values, 'listen-backoff', decimal(MAX_WAIT_MS), waitHint);
  const listenMaxBackoffMs = last(values, 'listen-max-backoff', decimal(MAX_WAIT_MS), waitHint);
  if (!backoffInOrder(listenBackoffMs, listenMaxBackoffMs)) {
    throw new UsageError(
      'the value of --listen-max-backoff is not valid: it must not be less than --listen-backoff',
    );
  }
  if (url !== undefined) checkUpstreamUrl(url);
  const { headers, warnings } = parseHeaders(values('header'), values('header-env'), env);
  // docs/http-upstream.md#http-headers: a static authorization header turns the sign-in off; sign-in options then conflict.
  const staticAuthorization = headers.some((header) => header.name.toLowerCase() === 'authorization');
  if (staticAuthorization) refuseSignInOptions(values);
  const signIn =
    url === undefined || staticAuthorization
      ? undefined
      : parseSignInOptions(
          values,
          env,
          values('header-env').map((spec) => spec.slice(spec.indexOf('=') + 1)),
          profile.identity.redirectPort,
          url,
        );
  const { caFile, caPem } = caFileOption(values);
  return {
    upstream: url === undefined ? { kind: 'command', argv: command } : { kind: 'url', url },
    ...(name === undefined ? {} : { name }),
    logLevel: logLevel ?? DEFAULTS.logLevel,
    discoverTimeoutMs: (seconds ?? DEFAULTS.discoverTimeoutSeconds) * 1000,
    maxLineBytes: maxLineBytes ?? DEFAULTS.maxLineBytes,
    ...(listenBackoffMs === undefined ? {} : { listenBackoffMs }),
    ...(listenMaxBackoffMs === undefined ? {} : { listenMaxBackoffMs }),
    headers,
    maxResponseBytes: maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    ...(caFile === undefined ? {} : { caFile }),
    ...(caPem === undefined ? {} : { caPem }),
    warnings,
    ...(signIn === undefined ? {} : { signIn }),
  };
}
