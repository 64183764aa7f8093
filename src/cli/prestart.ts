/**
 * The upstream command started before the CLI's modules load ("Fast start"): the
 * child's own start then overlaps the loading of the bridge instead of following the first
 * `initialize`. This deviates on purpose from docs/lifecycle.md#lifecycle-states ("only the first
 * initialize starts the upstream"); what the client sees is the same: the first `initialize`
 * adopts the child (serveStdio), answers its spawn error with `spawn_failed` (docs/lifecycle.md#lifecycle-initialize step 4), or
 * fails with `closed` when it exited meanwhile, and a retry starts a new child.
 *
 * Light on purpose: Node built-ins, the pure pre-scan of scan.ts and the child start edge only
 * (no yargs, RxJS or ajv), so that the spawn happens a few milliseconds after Node started.
 */
import {
  SIGNAL_KILL_MS,
  killGroup,
  signalExitCode,
  startUpstreamChild,
  stopUpstreamChild,
  terminateGroup,
} from '../edges/childStart.js';
import type { UpstreamChild } from '../edges/childStart.js';
import { LOG_LEVELS, MAX_BYTES, MAX_SECONDS, MAX_WAIT_MS, backoffInOrder, decimal } from './optionValues.js';
import { scanArgv } from './scan.js';
import type { OptionName } from './scan.js';

/**
 * The value checks of the options of the command form (args.ts applies the same ones): a command
 * line that fails them exits with 2, so its command is not started. An option without a check
 * here does not apply to the command form (a Conflict, exit 2 too).
 */
const VALUE_CHECKS: Partial<Record<OptionName, (text: string) => boolean>> = {
  name: (text) => text !== '',
  'log-level': (text) => LOG_LEVELS.some((level) => level === text),
  'discover-timeout': (text) => decimal(MAX_SECONDS)(text) !== undefined,
  'max-line-bytes': (text) => decimal(MAX_BYTES)(text) !== undefined,
  'listen-backoff': (text) => decimal(MAX_WAIT_MS)(text) !== undefined,
  'listen-max-backoff': (text) => decimal(MAX_WAIT_MS)(text) !== undefined,
};

/** The last value of an option as a number (checked by VALUE_CHECKS), or undefined. */
const lastNumber = (
  values: ReadonlyMap<OptionName, readonly string[]>,
  name: OptionName,
): number | undefined => {
  const text = values.get(name)?.at(-1);
  return text === undefined ? undefined : Number(text);
};

/** The values of the options before `--`, by option; undefined when one does not serve. */
function servingValues(options: readonly string[]): Map<OptionName, string[]> | undefined {
  const values = new Map<OptionName, string[]>();
  for (let i = 0; i < options.length; i += 1) {
    // scanArgv accepted them: known options, `--opt=value` or `--opt value`, no flag here.
    const arg = options[i] ?? '';
    const eq = arg.indexOf('=');
    const name = (eq < 0 ? arg : arg.slice(0, eq)).slice(2) as OptionName;
    const value = eq < 0 ? options[(i += 1)] : arg.slice(eq + 1);
    const check = VALUE_CHECKS[name];
    if (value === undefined || check === undefined || !check(value)) return undefined;
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return values;
}

/** A command line of the command form that the full parse serves: its command and option values. */
export interface CommandLine {
  readonly command: readonly [string, ...string[]];
  /** Every value of each option, in the order given. */
  readonly values: ReadonlyMap<OptionName, readonly string[]>;
}

/**
 * The command line in the command form (a command after `--`) when the full parse (args.ts) will
 * serve it; undefined for `--help`, `--version`, `logout`, a URL, an argument or a value the full
 * parse refuses, and an empty command name.
 */
export function commandLine(argv: readonly string[]): CommandLine | undefined {
  const scan = scanArgv(argv);
  if (scan.kind !== 'valid' || scan.form !== 'serve' || scan.http === true) return undefined;
  // scanArgv stops at the first `--` (a separate option value never starts with `--`), and
  // the full parse takes what follows it as the command.
  const separator = scan.args.indexOf('--');
  if (separator < 0) return undefined;
  const values = servingValues(scan.args.slice(0, separator));
  const [command, ...args] = scan.args.slice(separator + 1);
  if (values === undefined || command === undefined || command === '') return undefined;
  // The one check across two options: the full parse refuses a longest wait below the first.
  if (!backoffInOrder(lastNumber(values, 'listen-backoff'), lastNumber(values, 'listen-max-backoff')))
    return undefined;
  return { command: [command, ...args], values };
}

/** The upstream command of commandLine, which the executable starts before anything else. */
export const prestartCommand = (argv: readonly string[]): readonly [string, ...string[]] | undefined =>
  commandLine(argv)?.command;

/** A child started before the CLI loaded, and the signals that came meanwhile. */
export interface Prestart {
  readonly child: UpstreamChild;
  /**
   * Tells whether a SIGTERM or SIGINT came while the CLI loaded. When none came it hands the
   * signals over: it removes the handlers that stop the child meanwhile (call it right before
   * serveStdio installs its own). When one came they stay, so that a repeated one still kills the
   * child's process group before the exit.
   */
  takeSignal(): boolean;
}

/** Starts the upstream command of `argv` now, when the command line has one (prestartCommand). */
export function prestart(argv: readonly string[]): Prestart | undefined {
  const command = prestartCommand(argv);
  if (command === undefined) return undefined;
  // A signal while the CLI loads would end the bridge and leave the child (its own process group)
  // running: the handlers stop the child as serveStdio stops it (README "Command line"), SIGTERM
  // to its group at once and SIGKILL SIGNAL_KILL_MS later; a repeated signal kills the group and
  // exits at once. Installed before the spawn, so that no instant of the child's life is without
  // them; serveStdio takes over when no signal came.
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!signalled) {
      signalled = true;
      terminateGroup(started.pid);
      // The exit below kills what is left if the CLI exits first.
      setTimeout(() => killGroup(started.pid), SIGNAL_KILL_MS).unref();
      return;
    }
    killGroup(started.pid);
    process.exit(signalExitCode(signal));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Signals come in a later turn than this one: `started` is set by then.
  const started = startUpstreamChild(command);
  // The last resort of an exit that did not stop the child (a crash), or that follows a signal
  // (a process the child started): it never outlives the bridge.
  let exited = false;
  started.onExit(() => {
    exited = true;
  });
  process.once('exit', () => {
    if (!exited || signalled) killGroup(started.pid);
  });
  return {
    child: started,
    takeSignal: () => {
      if (signalled) return true;
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      return false;
    },
  };
}

/** Stops a prestarted child that nothing adopts (invalid arguments, another form, a failure). */
export async function dropPrestart(early: Prestart | undefined, graceMs: number): Promise<void> {
  if (early === undefined) return;
  early.takeSignal();
  await stopUpstreamChild(early.child, graceMs);
}
