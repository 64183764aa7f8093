/**
 * yargs on the command line (docs/cli.md#cli-parsing): the values of every option as written, the
 * URL and the command after `--`. It runs only on an argv that scanArgv accepted, which has
 * refused everything yargs could refuse, so yargs' own messages (which may echo arguments) are
 * never shown.
 */
import yargs from 'yargs';
import type { Values } from './optionValues.js';
import { OPTIONS } from './scan.js';
import { UsageError } from './usageError.js';

/**
 * yargs on an argv that scanArgv accepted: strict, every value a string taken as written. Each
 * value option takes exactly one argument (`nargs: 1`, which may start with `-`); that path of
 * yargs-parser also keeps quotes (`--name="x"`), which a plain string option would strip.
 */
export function parseArgv(
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
