/**
 * The command line of `mcp-bridge-vscode` and `mcp-bridge` (docs/cli.md#cli-forms, docs/http-upstream.md#http-url-rules,
 * docs/http-upstream.md#http-headers): argv in, a ParsedCommand out. The profile of the executable gives the program name of
 * `--help` and `--version` and the sign-in identity (default redirect port, token store places).
 * Pure apart from reading the `--ca-file`; only main() prints and exits.
 */
import yargs from 'yargs';
import type { LogLevel } from '../ports/logger.js';
import { loadCaFile } from './caFile.js';
import { parseHeaders, type HeaderSetting } from './headers.js';
import { helpText } from './help.js';
import type { LogoutOptions } from './logout.js';
import type { StatusOptions } from './status.js';
import {
  DEFAULTS,
  LOG_LEVELS,
  MAX_BYTES,
  MAX_SECONDS,
  conflict,
  decimal,
  last,
  nonEmpty,
  rangeHint,
  type Values,
} from './optionValues.js';
import { OPTIONS, optionSpec, scanArgv, type Form, type OptionName } from './scan.js';
import {
  parseSignInOptions,
  parseStoreOptions,
  refuseSignInOptions,
  type SignInOptions,
} from './signInArgs.js';
import { checkUpstreamUrl } from './urlRules.js';
import { UsageError } from './usageError.js';
import type { Profile } from '../profiles/profile.js';
import { vscodeProfile } from '../profiles/vscode.js';

export type Upstream =
  | { readonly kind: 'command'; readonly argv: readonly string[] }
  | { readonly kind: 'url'; readonly url: string };

export interface ServeOptions {
  readonly upstream: Upstream;
  /** `--name`; when absent the bridge falls back to the command's file name or the URL host (§2.6). */
  readonly name?: string;
  readonly logLevel: LogLevel;
  readonly discoverTimeoutMs: number;
  readonly maxLineBytes: number;
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

export type ParsedCommand =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'version'; readonly text: string }
  | { readonly kind: 'serve'; readonly options: ServeOptions }
  /** `logout [options] <url>` or `logout [options] --all` (docs/sign-in.md#sign-in-logout). */
  | { readonly kind: 'logout'; readonly options: LogoutOptions }
  /** `status [options] [<url>]` (README.md, "Status"). */
  | { readonly kind: 'status'; readonly options: StatusOptions }
  /** `message`: the diagnostic text, without the `mcp-bridge-vscode: vscode: error: ` prefix. */
  | { readonly kind: 'error'; readonly message: string };

export type { HeaderSetting, LogoutOptions, SignInOptions, StatusOptions };

export { DEFAULTS };

/**
 * yargs on an argv that scanArgv accepted: strict, every value a string taken as written. Each
 * value option takes exactly one argument (`nargs: 1`, which may start with `-`); that path of
 * yargs-parser also keeps quotes (`--name="x"`), which a plain string option would strip.
 */
function parseArgv(
  args: readonly string[],
  program: string,
): {
  readonly values: Values;
  readonly url?: string;
  readonly command: readonly string[];
} {
  let failed = false;
  const argv: Record<string, unknown> = yargs(args)
    .scriptName(program)
    .exitProcess(false)
    .help(false)
    .version(false)
    .strict()
    .parserConfiguration({
      'camel-case-expansion': false,
      'dot-notation': false,
      'boolean-negation': false,
      'parse-numbers': false,
      'parse-positional-numbers': false,
      'short-option-groups': false,
      'duplicate-arguments-array': true,
      'flatten-duplicate-arrays': true,
      'greedy-arrays': false,
      'nargs-eats-options': true,
      'populate--': true,
    })
    .options(
      Object.fromEntries(
        Object.entries(OPTIONS).map(([name, spec]) => [
          name,
          'flag' in spec ? { type: 'boolean' } : { type: 'string', nargs: 1 },
        ]),
      ),
    )
    .command('$0 [url]', false, (command) => command.positional('url', { type: 'string' }))
    .fail(() => {
      failed = true;
    })
    .parseSync();
  // scanArgv has refused everything yargs could refuse; yargs' own messages may echo arguments.
  if (failed) throw new UsageError('the arguments are not valid');
  // A flag that was given counts as one empty value.
  const list = (value: unknown): readonly string[] =>
    (Array.isArray(value) ? (value as unknown[]) : [value]).flatMap((item) =>
      typeof item === 'string' ? [item] : item === true ? [''] : [],
    );
  const url = argv['url'];
  return {
    values: (name) => list(argv[name]),
    ...(typeof url === 'string' ? { url } : {}),
    command: list(argv['--']),
  };
}

const given = (values: Values, name: OptionName): boolean => values(name).length > 0;

/** §8: an option given to a form it does not apply to is a Conflict, with the hint of the form. */
function checkForm(values: Values, form: Form): void {
  for (const name of Object.keys(OPTIONS) as OptionName[]) {
    const forms = optionSpec(name).forms;
    if (!given(values, name) || forms.includes(form)) continue;
    if (form === 'logout' || form === 'status') throw conflict(name, `${form} does not take it`);
    if (form === 'command' && forms.includes('url')) {
      throw conflict(name, 'it applies only to the URL of an upstream server, not to an upstream command');
    }
    throw conflict(name, `only ${forms.includes('logout') ? 'logout' : 'status'} takes it`);
  }
}

/** The `--ca-file` path and its PEM text, loaded and checked (exit 2 when unusable, §6.3). */
/** `--log-level`, the last one given (every form has it). */
const logLevelOption = (values: Values): LogLevel | undefined =>
  last(
    values,
    'log-level',
    (text) => LOG_LEVELS.find((level) => level === text),
    'give err, warn, info or debug',
  );

function caFileOption(values: Values): { caFile?: string; caPem?: string } {
  const caFile = last(values, 'ca-file', nonEmpty, 'it must not be empty');
  if (caFile === undefined) return {};
  const loaded = loadCaFile(caFile);
  if (!loaded.ok) throw new UsageError(loaded.message);
  return { caFile, caPem: loaded.pem };
}

function serveOptions(
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
    headers,
    maxResponseBytes: maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    ...(caFile === undefined ? {} : { caFile }),
    ...(caPem === undefined ? {} : { caPem }),
    warnings,
    ...(signIn === undefined ? {} : { signIn }),
  };
}

/** `logout [options] <url>` and `logout [options] --all` (docs/sign-in.md#sign-in-logout, docs/cli.md#cli-forms). */
function logoutOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  profile: Profile,
): LogoutOptions {
  const { values, url } = parseArgv(args, profile.name);
  checkForm(values, 'logout');
  const all = given(values, 'all');
  if (all && url !== undefined) {
    throw conflict('all', 'logout takes the URL of an upstream server or --all, not both');
  }
  if (all && given(values, 'account')) {
    throw conflict('account', '--all deletes the stored sign-ins of every account');
  }
  if (!all && url === undefined) {
    throw new UsageError(
      'the URL of the upstream server is missing: give it after the options of logout, or give --all',
    );
  }
  const logLevel = logLevelOption(values);
  if (url !== undefined) checkUpstreamUrl(url);
  const store = parseStoreOptions(values, env, profile.identity.redirectPort);
  const { caPem } = caFileOption(values);
  return {
    ...(url === undefined ? {} : { url }),
    all,
    account: store.account,
    redirectPort: store.redirectPort,
    tokenStore: store.tokenStore,
    ...(store.tokenKeyFile === undefined ? {} : { tokenKeyFile: store.tokenKeyFile }),
    noRevoke: given(values, 'no-revoke'),
    ...(caPem === undefined ? {} : { caPem }),
    logLevel: logLevel ?? DEFAULTS.logLevel,
    // The bridge name of the storage identity is the profile's (docs/sign-in.md#sign-in-stores);
    // main() gives runLogout the rest of the profile's identity (keychain service, token directory).
    bridgeName: profile.name,
  };
}

/** `status [options] [<url>]` (README.md, "Status"): the store options, `--account` as a filter. */
function statusOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  profile: Profile,
): StatusOptions {
  const { values, url } = parseArgv(args, profile.name);
  checkForm(values, 'status');
  const logLevel = logLevelOption(values);
  if (url !== undefined) checkUpstreamUrl(url);
  const store = parseStoreOptions(values, env, profile.identity.redirectPort);
  return {
    ...(url === undefined ? {} : { url }),
    ...(given(values, 'account') ? { account: store.account } : {}),
    tokenStore: store.tokenStore,
    ...(store.tokenKeyFile === undefined ? {} : { tokenKeyFile: store.tokenKeyFile }),
    json: given(values, 'json'),
    logLevel: logLevel ?? DEFAULTS.logLevel,
    bridgeName: profile.name,
  };
}

/**
 * Parses the arguments after the executable name. `env` is read for `--header-env` only;
 * `version` goes into the `--version` text; `profile` is the executable's (`mcp-bridge-vscode`
 * by default).
 */
export function parseCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  version: string,
  profile: Profile = vscodeProfile,
): ParsedCommand {
  const scan = scanArgv(argv);
  switch (scan.kind) {
    case 'help':
      return { kind: 'help', text: helpText(profile) };
    case 'version':
      return { kind: 'version', text: `${profile.name} ${version}` };
    case 'error':
      return scan;
    case 'valid':
      try {
        switch (scan.form) {
          case 'logout':
            return { kind: 'logout', options: logoutOptions(scan.args, env, profile) };
          case 'status':
            return { kind: 'status', options: statusOptions(scan.args, env, profile) };
          case 'serve':
            return { kind: 'serve', options: serveOptions(argv, env, profile) };
        }
      } catch (error) {
        if (error instanceof UsageError) return { kind: 'error', message: error.message };
        throw error;
      }
  }
}
