/**
 * The first pass over argv: the rules of docs/cli.md#cli-forms that yargs cannot express.
 * It finds the form (`logout` or `status` first, else a URL or "--"), where the options end, refuses unknown
 * options (naming them without their value), missing values (a separate value may not start with
 * `--`), flags with a value and misplaced arguments, and returns at once for `--help` and
 * `--version`. yargs then parses what passed.
 */

/** The forms of the command line (docs/cli.md#cli-forms). */
export type Form = 'command' | 'url' | 'logout' | 'status';

/** One option: the forms it applies to, whether it is a flag, and whether it belongs to the sign-in. */
export interface OptionSpec {
  readonly forms: readonly Form[];
  /** A flag takes no value; `exits` flags (help, version) end the parse at once. */
  readonly flag?: 'exits' | 'plain';
  /** A sign-in option: it conflicts with a static `authorization` header (docs/http-upstream.md#http-headers, docs/cli.md#cli-diagnostics). */
  readonly signIn?: true;
  /** An option of `serve` only, the HTTP front end (docs/cli.md#cli-serve). */
  readonly http?: true;
}

const SERVE: readonly Form[] = ['command', 'url'];
const URL_ONLY: readonly Form[] = ['url'];
const URL_LOGOUT: readonly Form[] = ['url', 'logout'];
const STORE: readonly Form[] = ['url', 'logout', 'status'];
const ALL: readonly Form[] = ['command', 'url', 'logout', 'status'];

/** The options of the bridge, by name without the leading `--` (the table of docs/cli.md#cli-options). */
export const OPTIONS = {
  name: { forms: SERVE },
  'log-level': { forms: ALL },
  'discover-timeout': { forms: SERVE },
  'max-line-bytes': { forms: SERVE },
  'listen-backoff': { forms: SERVE },
  'listen-max-backoff': { forms: SERVE },
  header: { forms: URL_ONLY },
  'header-env': { forms: URL_ONLY },
  'max-response-bytes': { forms: URL_ONLY },
  'ca-file': { forms: URL_LOGOUT },
  grant: { forms: URL_ONLY, signIn: true },
  'client-id': { forms: URL_ONLY, signIn: true },
  'client-issuer': { forms: URL_ONLY, signIn: true },
  'client-metadata-url': { forms: URL_ONLY, signIn: true },
  'client-key-file': { forms: URL_ONLY, signIn: true },
  'assertion-file': { forms: URL_ONLY, signIn: true },
  'idp-issuer': { forms: URL_ONLY, signIn: true },
  'idp-client-id': { forms: URL_ONLY, signIn: true },
  'idp-token-endpoint': { forms: URL_ONLY, signIn: true },
  'id-token-file': { forms: URL_ONLY, signIn: true },
  'redirect-port': { forms: URL_LOGOUT, signIn: true },
  account: { forms: STORE, signIn: true },
  'token-store': { forms: STORE, signIn: true },
  'token-key-file': { forms: STORE, signIn: true },
  'no-browser': { forms: URL_ONLY, flag: 'plain', signIn: true },
  'no-dpop': { forms: URL_ONLY, flag: 'plain', signIn: true },
  'sign-in-timeout': { forms: URL_ONLY, signIn: true },
  listen: { forms: SERVE, http: true },
  'allow-origin': { forms: SERVE, http: true },
  'auth-token-file': { forms: SERVE, http: true },
  'max-sessions': { forms: SERVE, http: true },
  'max-requests': { forms: SERVE, http: true },
  'max-session-requests': { forms: SERVE, http: true },
  'max-body-bytes': { forms: SERVE, http: true },
  'session-idle': { forms: SERVE, http: true },
  'body-timeout': { forms: SERVE, http: true },
  'max-connections': { forms: SERVE, http: true },
  'max-session-buffer-bytes': { forms: SERVE, http: true },
  metrics: { forms: SERVE, flag: 'plain', http: true },
  all: { forms: ['logout'], flag: 'plain' },
  'no-revoke': { forms: ['logout'], flag: 'plain' },
  idp: { forms: ['logout'] },
  json: { forms: ['status'], flag: 'plain' },
  help: { forms: ALL, flag: 'exits' },
  version: { forms: ALL, flag: 'exits' },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;

export const optionSpec = (name: OptionName): OptionSpec => OPTIONS[name];

export type ScanResult =
  | { readonly kind: 'help' | 'version' }
  | { readonly kind: 'error'; readonly message: string }
  /** `args`: what yargs parses (without the word `logout`, `status` or `serve`); `http`: the word `serve` came first. */
  | {
      readonly kind: 'valid';
      readonly form: 'serve' | 'logout' | 'status';
      readonly args: readonly string[];
      readonly http?: true;
    };

const NOT_AN_OPTION =
  'an argument is not an option: give the options first, then the URL of the upstream server, ' +
  'or "--" and the upstream command';
const NOT_AN_OPTION_LOGOUT =
  'an argument is not an option: give the options of logout first, then the URL of the upstream ' +
  'server, or --all';
const NOT_AN_OPTION_STATUS =
  'an argument is not an option: give the options of status first, then the URL of an upstream ' +
  'server, or no URL for every stored sign-in';
const AFTER_URL = 'an argument follows the URL of the upstream server: the URL must be the last argument';
const URL_AND_COMMAND =
  'both a URL and an upstream command are given: give the URL of the upstream server, ' +
  'or put the upstream command after "--", not both';

const isOptionName = (name: string): name is OptionName => Object.hasOwn(OPTIONS, name);

/** Names an unknown option only when the name looks like one (a pasted secret is not echoed). */
const unknownOption = (written: string): string =>
  /^(--[A-Za-z0-9][A-Za-z0-9-]{0,39}|-[A-Za-z0-9])$/.test(written)
    ? `the option ${written} is not known`
    : 'an argument that starts with "-" is not a known option';

export function scanArgv(argv: readonly string[]): ScanResult {
  const error = (message: string): ScanResult => ({ kind: 'error', message });
  const form = argv[0] === 'logout' ? 'logout' : argv[0] === 'status' ? 'status' : 'serve';
  const sub = form !== 'serve';
  // `serve`: the HTTP front end, the serve forms with the options of docs/cli.md#cli-serve.
  const http = argv[0] === 'serve';
  const notAnOption =
    form === 'logout' ? NOT_AN_OPTION_LOGOUT : form === 'status' ? NOT_AN_OPTION_STATUS : NOT_AN_OPTION;
  const args = sub || http ? argv.slice(1) : argv;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      if (sub) return error(notAnOption);
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      if (!arg.includes('://')) return error(notAnOption);
      const next = args[i + 1];
      if (next === undefined) break;
      return error(next === '--' && !sub ? URL_AND_COMMAND : AFTER_URL);
    }
    const eq = arg.indexOf('=');
    const written = eq < 0 ? arg : arg.slice(0, eq);
    const name = written.slice(2);
    if (!written.startsWith('--') || !isOptionName(name)) return error(unknownOption(written));
    if (optionSpec(name).http === true && !http)
      return error(`the option ${written} is only for the serve command`);
    const flag = optionSpec(name).flag;
    if (flag !== undefined) {
      if (eq >= 0) return error(`the option ${written} takes no value`);
      if (flag === 'exits') return { kind: name === 'help' ? 'help' : 'version' };
      continue;
    }
    if (eq < 0) {
      const value = args[i + 1];
      if (value === undefined || value.startsWith('--')) return error(`the option ${written} needs a value`);
      i += 1;
    }
  }
  return http ? { kind: 'valid', form, args, http } : { kind: 'valid', form, args };
}
