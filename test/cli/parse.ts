/** Shortcuts for the command-line tests: parse, then insist on the kind of result. */
import { expect } from 'vitest';
import { parseCommandLine, type ServeOptions } from '../../src/cli/args.js';

export const VERSION = '9.8.7';

export const parse = (argv: readonly string[], env: Record<string, string | undefined> = {}) =>
  parseCommandLine(argv, env, VERSION);

export function serve(argv: readonly string[], env: Record<string, string | undefined> = {}): ServeOptions {
  const result = parse(argv, env);
  if (result.kind !== 'serve') expect.fail(`expected serve, got ${JSON.stringify(result)}`);
  return result.options;
}

export function error(argv: readonly string[], env: Record<string, string | undefined> = {}): string {
  const result = parse(argv, env);
  if (result.kind !== 'error') expect.fail(`expected error, got ${JSON.stringify(result)}`);
  return result.message;
}
