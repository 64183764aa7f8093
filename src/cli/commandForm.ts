/**
 * The options of a command line in the command form, read without yargs ("Nothing
 * heavy before it is needed"): yargs and its helpers are about two thirds of the CLI chunk the
 * executable loads at start, and the command form (`[options] -- <command>`) is how VS Code runs
 * it. When prestart.ts's commandLine finds a command line that the full parse serves, its
 * options are built here with the rules of args.ts (the last value wins; the defaults of
 * optionValues.ts); every other command line goes through args.ts. A property test pins that
 * both give the same options (test/cli/commandForm.test.ts).
 */
import type { ServeOptions } from './args.js';
import { DEFAULTS, LOG_LEVELS } from './optionValues.js';
import { commandLine } from './prestart.js';

/** The options args.ts's parseCommandLine gives for `argv`, when it is in the command form. */
export function commandFormOptions(argv: readonly string[]): ServeOptions | undefined {
  const line = commandLine(argv);
  if (line === undefined) return undefined;
  // Every value was checked by commandLine; the last one of each option wins (docs/sign-in.md#sign-in-trigger).
  const lastOf = (name: Parameters<typeof line.values.get>[0]): string | undefined =>
    line.values.get(name)?.at(-1);
  const name = lastOf('name');
  const logLevel = LOG_LEVELS.find((level) => level === lastOf('log-level'));
  const seconds = lastOf('discover-timeout');
  const maxLineBytes = lastOf('max-line-bytes');
  const listenBackoff = lastOf('listen-backoff');
  const listenMaxBackoff = lastOf('listen-max-backoff');
  return {
    upstream: { kind: 'command', argv: line.command },
    ...(name === undefined ? {} : { name }),
    logLevel: logLevel ?? DEFAULTS.logLevel,
    discoverTimeoutMs: (seconds === undefined ? DEFAULTS.discoverTimeoutSeconds : Number(seconds)) * 1000,
    maxLineBytes: maxLineBytes === undefined ? DEFAULTS.maxLineBytes : Number(maxLineBytes),
    ...(listenBackoff === undefined ? {} : { listenBackoffMs: Number(listenBackoff) }),
    ...(listenMaxBackoff === undefined ? {} : { listenMaxBackoffMs: Number(listenMaxBackoff) }),
    headers: [],
    maxResponseBytes: DEFAULTS.maxResponseBytes,
    warnings: [],
  };
}
