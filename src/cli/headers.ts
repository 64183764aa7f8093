/**
 * The headers of `--header <name>:<value>` and `--header-env <name>=<VAR>`
 * (docs/http-upstream.md#http-headers). Diagnostics and warnings name headers and variables, never values.
 */
import { UsageError } from './usageError.js';
import { TRANSPORT_HEADER_NAMES } from '../protocol/headerNames.js';

export interface HeaderSetting {
  readonly name: string;
  readonly value: string;
  /** True when the value came from the environment (`--header-env`). */
  readonly secret: boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Characters a header value may hold (as Node's HTTP client checks them), after trimming. */
const VALUE = /^[\t\x20-\x7e\x80-\xff]+$/;
/** Protocol, connection and proxy headers: the bridge or the HTTP client sets them. */
const REFUSED = TRANSPORT_HEADER_NAMES;
const INLINE_CREDENTIALS: ReadonlySet<string> = new Set(['authorization', 'cookie', 'x-api-key', 'api-key']);

const trimSpaces = (text: string): string => text.replace(/^[ \t]+|[ \t]+$/g, '');

function checkName(name: string, option: string, form: string): void {
  if (!TOKEN.test(name)) {
    throw new UsageError(
      `the value of ${option} is not valid: give it as ${form}, with a header name that is an HTTP token`,
    );
  }
  const lower = name.toLowerCase();
  if (lower === 'proxy-authorization') {
    throw new UsageError(
      `the header ${name} of ${option} is not permitted: give proxy credentials in the proxy URL (HTTPS_PROXY)`,
    );
  }
  if (lower.startsWith('mcp-') || REFUSED.has(lower)) {
    throw new UsageError(
      `the header ${name} of ${option} is not permitted: the bridge sets this header itself`,
    );
  }
}

function split(spec: string, separator: string, option: string, form: string): readonly [string, string] {
  const at = spec.indexOf(separator);
  if (at < 0) throw new UsageError(`the value of ${option} is not valid: give it as ${form}`);
  const name = spec.slice(0, at);
  checkName(name, option, form);
  return [name, spec.slice(at + 1)];
}

function inlineHeader(spec: string): HeaderSetting {
  const [name, raw] = split(spec, ':', '--header', '<name>:<value>');
  const value = trimSpaces(raw);
  if (value === '') throw new UsageError(`the header ${name} of --header is not valid: its value is empty`);
  if (!VALUE.test(value)) {
    throw new UsageError(`the header ${name} of --header is not valid: its value holds a control character`);
  }
  return { name, value, secret: false };
}

function environmentHeader(spec: string, env: Readonly<Record<string, string | undefined>>): HeaderSetting {
  const form = '<name>=<VAR>, where VAR matches [A-Za-z_][A-Za-z0-9_]*';
  const [name, variable] = split(spec, '=', '--header-env', form);
  if (!VARIABLE.test(variable))
    throw new UsageError(`the value of --header-env is not valid: give it as ${form}`);
  const value = (Object.hasOwn(env, variable) ? (env[variable] ?? '') : '').trim();
  if (value === '') {
    throw new UsageError(`the environment variable ${variable} of --header-env is not set, or it is empty`);
  }
  if (!VALUE.test(value)) {
    throw new UsageError(
      `the environment variable ${variable} is not valid: the value of the header ${name} holds a control character`,
    );
  }
  return { name, value, secret: true };
}

/**
 * Checks the `--header` and `--header-env` values (in that order) and reads the variables.
 * Throws a UsageError on the first mistake. Warns for a credential given inline.
 */
export function parseHeaders(
  inline: readonly string[],
  fromEnvironment: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): { readonly headers: readonly HeaderSetting[]; readonly warnings: readonly string[] } {
  const headers = [
    ...inline.map(inlineHeader),
    ...fromEnvironment.map((spec) => environmentHeader(spec, env)),
  ];
  const seen = new Set<string>();
  for (const { name } of headers) {
    if (seen.has(name.toLowerCase())) {
      throw new UsageError(`the header ${name} occurs more than one time in --header and --header-env`);
    }
    seen.add(name.toLowerCase());
  }
  const warnings = headers
    .filter((header) => !header.secret && INLINE_CREDENTIALS.has(header.name.toLowerCase()))
    .map(
      ({ name }) =>
        `the value of the header ${name} is on the command line, where other local users may see it: ` +
        'give it with --header-env instead',
    );
  return { headers, warnings };
}
