/**
 * The command line of `mcp-bridge-vscode` (reference-behaviors.md §8, §6.1, §6.2): argv in, a
 * ParsedCommand out. Pure apart from reading the `--ca-file`; only main() prints and exits.
 */
import yargs from 'yargs';
import type { LogLevel } from '../bridge/log.js';
import { loadCaFile } from './caFile.js';
import { parseHeaders, type HeaderSetting } from './headers.js';
import { HELP_TEXT } from './help.js';
import { OPTIONS, scanArgv, type OptionName } from './scan.js';
import { checkUpstreamUrl } from './urlRules.js';
import { UsageError } from './usageError.js';

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
}

export type ParsedCommand =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'version'; readonly text: string }
  | { readonly kind: 'serve'; readonly options: ServeOptions }
  /** `message`: the diagnostic text, without the `mcp-bridge-vscode: vscode: error: ` prefix. */
  | { readonly kind: 'error'; readonly message: string };

export type { HeaderSetting };

export const DEFAULTS = {
  logLevel: 'info',
  discoverTimeoutSeconds: 60,
  maxLineBytes: 64 * 1024 * 1024,
  maxResponseBytes: 64 * 1024 * 1024,
} as const;

const LOG_LEVELS: readonly LogLevel[] = ['err', 'warn', 'info', 'debug'];
const MAX_SECONDS = 4_294_967_295;
const MAX_BYTES = 1_073_741_824;

type Values = (name: OptionName) => readonly string[];

/**
 * yargs on an argv that scanArgv accepted: strict, every value a string taken as written. Each
 * value option takes exactly one argument (`nargs: 1`, which may start with `-`); that path of
 * yargs-parser also keeps quotes (`--name="x"`), which a plain string option would strip.
 */
function parseArgv(args: readonly string[]): {
  readonly values: Values;
  readonly url?: string;
  readonly command: readonly string[];
} {
  let failed = false;
  const argv: Record<string, unknown> = yargs(args)
    .scriptName('mcp-bridge-vscode')
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
        Object.entries(OPTIONS).map(([name, kind]) => [
          name,
          kind === 'flag' ? { type: 'boolean' } : { type: 'string', nargs: 1 },
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
  const list = (value: unknown): readonly string[] =>
    (Array.isArray(value) ? (value as unknown[]) : [value]).filter((item) => typeof item === 'string');
  const url = argv['url'];
  return {
    values: (name) => list(argv[name]),
    ...(typeof url === 'string' ? { url } : {}),
    command: list(argv['--']),
  };
}

/** Checks every occurrence of an option and returns the last one (undefined when not given). */
function last<T>(
  values: Values,
  name: OptionName,
  check: (text: string) => T | undefined,
  hint: string,
): T | undefined {
  let result: T | undefined;
  for (const text of values(name)) {
    result = check(text);
    if (result === undefined) throw new UsageError(`the value of --${name} is not valid: ${hint}`);
  }
  return result;
}

const decimal =
  (max: number) =>
  (text: string): number | undefined => {
    const value = /^[0-9]+$/.test(text) ? Number(text) : 0;
    return value >= 1 && value <= max ? value : undefined;
  };

const rangeHint = (max: number, unit: string): string =>
  `give a whole number of ${unit} from 1 to ${max}, in decimal digits only`;

function serveOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServeOptions {
  const { values, url, command } = parseArgv(argv);
  if (url === undefined && command.length === 0) {
    throw new UsageError(
      'the upstream server is missing: give its URL, or put the upstream command after "--"',
    );
  }
  if (url === undefined) {
    const urlOnly = (Object.keys(OPTIONS) as OptionName[]).find(
      (n) => OPTIONS[n] === 'url' && values(n).length > 0,
    );
    if (urlOnly !== undefined) {
      throw new UsageError(
        `the option --${urlOnly} cannot be used here: it applies only to the URL of an upstream server, ` +
          'not to an upstream command',
      );
    }
    if (command[0] === '') throw new UsageError('the upstream command is not valid: its name is empty');
  }
  const name = last(values, 'name', (text) => (text === '' ? undefined : text), 'it must not be empty');
  const logLevel = last(
    values,
    'log-level',
    (text) => LOG_LEVELS.find((level) => level === text),
    'give err, warn, info or debug',
  );
  const seconds = last(values, 'discover-timeout', decimal(MAX_SECONDS), rangeHint(MAX_SECONDS, 'seconds'));
  const maxLineBytes = last(values, 'max-line-bytes', decimal(MAX_BYTES), rangeHint(MAX_BYTES, 'bytes'));
  const maxResponseBytes = last(
    values,
    'max-response-bytes',
    decimal(MAX_BYTES),
    rangeHint(MAX_BYTES, 'bytes'),
  );
  const caFile = last(values, 'ca-file', (text) => (text === '' ? undefined : text), 'it must not be empty');
  if (url !== undefined) checkUpstreamUrl(url);
  const { headers, warnings } = parseHeaders(values('header'), values('header-env'), env);
  let caPem: string | undefined;
  if (caFile !== undefined) {
    const loaded = loadCaFile(caFile);
    if (!loaded.ok) throw new UsageError(loaded.message);
    caPem = loaded.pem;
  }
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
  };
}

/**
 * Parses the arguments after the executable name. `env` is read for `--header-env` only;
 * `version` goes into the `--version` text.
 */
export function parseCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  version: string,
): ParsedCommand {
  const scan = scanArgv(argv);
  switch (scan.kind) {
    case 'help':
      return { kind: 'help', text: HELP_TEXT };
    case 'version':
      return { kind: 'version', text: `mcp-bridge-vscode ${version}` };
    case 'error':
      return scan;
    case 'valid':
      try {
        return { kind: 'serve', options: serveOptions(argv, env) };
      } catch (error) {
        if (error instanceof UsageError) return { kind: 'error', message: error.message };
        throw error;
      }
  }
}
