/**
 * The command line of `doctor` (docs/doctor.md#doctor-usage): `doctor [options] -- <command>` and
 * `doctor [options] <url>`, with the options of the bridge's own forms, read by the same parser
 * (scan.ts, then serveOptions.ts: the same checks, messages and defaults), and `--json`.
 */
import type { ServeOptions } from '../serveOptions.js';
import { OPTIONS, optionSpec, scanArgv, type OptionName } from '../scan.js';
import { serveOptions } from '../serveOptions.js';
import { UsageError } from '../usageError.js';
import type { Profile } from '../../profiles/profile.js';

export interface DoctorOptions {
  readonly serve: ServeOptions;
  /** `--json`: the results as one JSON array on stdout. */
  readonly json: boolean;
}

export type DoctorCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'doctor'; readonly options: DoctorOptions };

/** The words of the other forms: after `doctor` they are no upstream. */
const FORMS: ReadonlySet<string> = new Set(['logout', 'status', 'serve', 'add', 'doctor']);

const isOption = (name: string): name is OptionName => Object.hasOwn(OPTIONS, name);

/** Index of the end of the options: the `--`, or the URL (an argument that is no option nor its value). */
function optionsEnd(args: readonly string[]): number {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '--' || !arg.startsWith('-')) return i;
    const name = arg.slice(2);
    // A value option written without `=` takes the next argument (scan.ts checks the rest).
    if (isOption(name) && optionSpec(name).flag === undefined) i += 1;
  }
  return args.length;
}

/** Parses the arguments after the word `doctor`. */
export function parseDoctorCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  profile: Profile,
): DoctorCommand {
  // `--json` is doctor's own flag; the rest is the bridge's command line, parsed as the bridge's.
  const end = optionsEnd(args);
  const json = args.slice(0, end).includes('--json');
  const rest = [...args.slice(0, end).filter((arg) => arg !== '--json'), ...args.slice(end)];
  if (rest[0] !== undefined && FORMS.has(rest[0])) {
    return { kind: 'error', message: `doctor checks an upstream: "${rest[0]}" is not one` };
  }
  const scan = scanArgv(rest);
  if (scan.kind === 'help' || scan.kind === 'version') return { kind: 'help' };
  if (scan.kind === 'error') return scan;
  try {
    return { kind: 'doctor', options: { serve: serveOptions(rest, env, profile), json } };
  } catch (error) {
    if (error instanceof UsageError) return { kind: 'error', message: error.message };
    throw error;
  }
}
