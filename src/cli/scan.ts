/**
 * The first pass over argv: the rules of reference-behaviors.md §8 that yargs cannot express.
 * It finds where the options end, refuses unknown options (naming them without their value),
 * missing values (a separate value may not start with `--`), flags with a value and misplaced
 * arguments, and returns at once for `--help` and `--version`. yargs then parses what passed.
 */

/** Where an option applies: both forms, the URL form only, or a flag that ends the parse. */
export type OptionKind = 'both' | 'url' | 'flag';

/** The options of the bridge, by name without the leading `--`. */
export const OPTIONS = {
  name: 'both',
  'log-level': 'both',
  'discover-timeout': 'both',
  'max-line-bytes': 'both',
  header: 'url',
  'header-env': 'url',
  'max-response-bytes': 'url',
  'ca-file': 'url',
  help: 'flag',
  version: 'flag',
} as const satisfies Record<string, OptionKind>;

export type OptionName = keyof typeof OPTIONS;

export type ScanResult =
  | { readonly kind: 'help' | 'version' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'valid' };

const NOT_AN_OPTION =
  'an argument is not an option: give the options first, then the URL of the upstream server, ' +
  'or "--" and the upstream command';
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
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') {
      if (!arg.includes('://')) return error(NOT_AN_OPTION);
      const next = argv[i + 1];
      if (next === undefined) break;
      return error(next === '--' ? URL_AND_COMMAND : AFTER_URL);
    }
    const eq = arg.indexOf('=');
    const written = eq < 0 ? arg : arg.slice(0, eq);
    const name = written.slice(2);
    if (!written.startsWith('--') || !isOptionName(name)) return error(unknownOption(written));
    if (OPTIONS[name] === 'flag') {
      if (eq >= 0) return error(`the option ${written} takes no value`);
      return { kind: name === 'help' ? 'help' : 'version' };
    }
    if (eq < 0) {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) return error(`the option ${written} needs a value`);
      i += 1;
    }
  }
  return { kind: 'valid' };
}
