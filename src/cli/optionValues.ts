/**
 * Reading option values (docs/cli.md#cli-forms): the last occurrence wins and every
 * occurrence is checked; numbers are decimal digits only. Diagnostics never hold the value.
 */
import type { LogLevel } from '../ports/logger.js';
import type { OptionName } from './scan.js';
import { UsageError } from './usageError.js';

/** The defaults of the options of the serve forms (docs/cli.md#cli-forms). */
export const DEFAULTS = {
  logLevel: 'info',
  discoverTimeoutSeconds: 60,
  maxLineBytes: 64 * 1024 * 1024,
  maxResponseBytes: 64 * 1024 * 1024,
} as const;

/** The values of `--log-level`. */
export const LOG_LEVELS: readonly LogLevel[] = ['err', 'warn', 'info', 'debug'];
/** The largest `--discover-timeout`, in seconds. */
export const MAX_SECONDS = 4_294_967_295;
/** The largest `--max-line-bytes` and `--max-response-bytes`. */
export const MAX_BYTES = 1_073_741_824;
/** The largest `--listen-backoff` and `--listen-max-backoff`, in ms: the longest wait of a Node timer. */
export const MAX_WAIT_MS = 2_147_483_647;

/**
 * Whether `--listen-backoff` and `--listen-max-backoff` fit together (docs/notifications.md#notifications-reconnect):
 * the longest wait is never below the first one.
 */
export const backoffInOrder = (firstMs: number | undefined, longestMs: number | undefined): boolean =>
  firstMs === undefined || longestMs === undefined || longestMs >= firstMs;

/** Every value of an option, in the order given. */
export type Values = (name: OptionName) => readonly string[];

/** Checks every occurrence of an option and returns the last one (undefined when not given). */
export function last<T>(
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

export const decimal =
  (max: number) =>
  (text: string): number | undefined => {
    const value = /^[0-9]+$/.test(text) ? Number(text) : 0;
    return value >= 1 && value <= max ? value : undefined;
  };

export const rangeHint = (max: number, unit: string): string =>
  `give a whole number of ${unit} from 1 to ${max}, in decimal digits only`;

export const nonEmpty = (text: string): string | undefined => (text === '' ? undefined : text);

/** The Conflict diagnostic of docs/cli.md#cli-diagnostics: `the option --<name> cannot be used here: <hint>`. */
export const conflict = (name: OptionName, hint: string): UsageError =>
  new UsageError(`the option --${name} cannot be used here: ${hint}`);

/** An environment variable, trimmed; unset and empty are the same (docs/cli.md#cli-diagnostics). */
export function envValue(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): string | undefined {
  const value = Object.hasOwn(env, name) ? env[name]?.trim() : undefined;
  return value === undefined || value === '' ? undefined : value;
}

/** The last value of a URL option; each one checked, the hint saying what is wrong. */
export function lastUrl(
  values: Values,
  name: OptionName,
  hintOf: (text: string) => string | undefined,
): string | undefined {
  let result: string | undefined;
  for (const text of values(name)) {
    const hint = hintOf(text);
    if (hint !== undefined) throw new UsageError(`the value of --${name} is not valid: ${hint}`);
    result = text;
  }
  return result;
}
