/**
 * What the forms of the command line share (docs/cli.md#cli-forms, docs/cli.md#cli-options): the
 * check that each given option applies to the form, `--log-level` and `--ca-file`.
 */
import type { LogLevel } from '../ports/logger.js';
import { loadCaFile } from './caFile.js';
import { LOG_LEVELS, conflict, last, nonEmpty, type Values } from './optionValues.js';
import { OPTIONS, optionSpec, type Form, type OptionName } from './scan.js';
import { UsageError } from './usageError.js';

export const given = (values: Values, name: OptionName): boolean => values(name).length > 0;

/** docs/cli.md#cli-diagnostics: an option given to a form it does not apply to is a Conflict, with the hint of the form. */
export function checkForm(values: Values, form: Form): void {
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

/** `--log-level`, the last one given (every form has it). */
export const logLevelOption = (values: Values): LogLevel | undefined =>
  last(
    values,
    'log-level',
    (text) => LOG_LEVELS.find((level) => level === text),
    'give err, warn, info or debug',
  );

/** The `--ca-file` path and its PEM text, loaded and checked (exit 2 when unusable, docs/http-upstream.md#http-client). */
export function caFileOption(values: Values): { caFile?: string; caPem?: string } {
  const caFile = last(values, 'ca-file', nonEmpty, 'it must not be empty');
  if (caFile === undefined) return {};
  const loaded = loadCaFile(caFile);
  if (!loaded.ok) throw new UsageError(loaded.message);
  return { caFile, caPem: loaded.pem };
}
