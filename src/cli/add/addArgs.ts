/**
 * The command line of `add` (docs/install.md#install-add):
 * `add <client> [--name <n>] [--scope user|project] [--force] [--print] [--bridge <path>]
 * [--pass-env <VAR>]... [bridge options] (-- <command> [args...] | <url>)`.
 * The bridge options are the bridge's own (docs/cli.md#cli-options) and are checked by its own
 * parse (args.ts), with the variables of --header-env standing in for their values, so that an
 * entry `add` writes is one the bridge starts with. Messages never quote a value.
 */
import { isAbsolute, resolve } from 'node:path';
import { parseCommandLine } from '../args.js';
import { OPTIONS, optionSpec } from '../scan.js';
import type { OptionName, OptionSpec } from '../scan.js';
import { UsageError } from '../usageError.js';
import type { Profile } from '../../profiles/profile.js';
import { CLIENTS, CLIENT_SPECS, isClientName } from './clients.js';
import type { ClientName, Scope } from './clients.js';

export interface AddRequest {
  readonly client: ClientName;
  readonly name: string;
  readonly scope: Scope;
  readonly force: boolean;
  readonly print: boolean;
  /** The bridge executable to start instead of the pinned npx package. */
  readonly bridge?: string;
  /** The bridge's command line: its options, then the URL or `--` and the command. */
  readonly bridgeArgv: readonly string[];
  /** The variables the bridge reads: those of --header-env, then those of --pass-env. */
  readonly envVars: readonly string[];
}

export type AddParse = { readonly kind: 'help' } | { readonly kind: 'add'; readonly request: AddRequest };

const ADD_OPTIONS = ['name', 'scope', 'bridge', 'pass-env'] as const;
const ADD_FLAGS = ['force', 'print', 'help'] as const;
/** The options of the bridge that name a file: made absolute, as the client starts it elsewhere. */
const FILE_OPTIONS = new Set(['ca-file', 'token-key-file']);
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const isOneOf = <T extends string>(list: readonly T[], text: string): text is T =>
  list.some((item) => item === text);

/** The entry name the bridge would show: the command's file name without extension, or the host. */
export function defaultName(command: string | undefined, url: string | undefined): string {
  const base =
    url === undefined
      ? (command ?? '')
          .split(/[\\/]/)
          .at(-1)
          ?.replace(/\.[^.]*$/, '')
      : new URL(url).hostname.replace(/^\[|\]$/g, '');
  const name = (base ?? '').replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[^A-Za-z]+/, '');
  return NAME.test(name) ? name : 'mcp-bridge';
}

/** Parses the arguments after `add`; throws a UsageError. */
export function parseAdd(
  args: readonly string[],
  cwd: string,
  profileOf: (client: ClientName) => Profile,
): AddParse {
  const [client, ...rest] = args;
  if (client === '--help') return { kind: 'help' };
  if (client === undefined || !isClientName(client)) {
    throw new UsageError(`add needs a client first: ${CLIENTS.join(', ')}`);
  }
  const own = new Map<string, string[]>();
  const bridgeOptions: string[] = [];
  let url: string | undefined;
  let command: string[] | undefined;
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i] ?? '';
    if (arg === '--') {
      command = rest.slice(i + 1);
      break;
    }
    if (!arg.startsWith('--')) {
      if (!arg.includes('://') || i !== rest.length - 1) {
        throw new UsageError(
          'an argument is not an option: give the options, then the URL or "--" and the command',
        );
      }
      url = arg;
      break;
    }
    const eq = arg.indexOf('=');
    const option = (eq < 0 ? arg : arg.slice(0, eq)).slice(2);
    if (isOneOf(ADD_FLAGS, option)) {
      if (eq >= 0) throw new UsageError(`the option --${option} takes no value`);
      if (option === 'help') return { kind: 'help' };
      own.set(option, ['']);
      continue;
    }
    const known = isOneOf(ADD_OPTIONS, option) || Object.hasOwn(OPTIONS, option);
    if (!known || option === 'help' || option === 'version') {
      throw new UsageError(
        /^[A-Za-z0-9-]{1,40}$/.test(option)
          ? `the option --${option} is not known to add`
          : 'an argument that starts with "-" is not a known option',
      );
    }
    if (option === 'header') {
      throw new UsageError(
        "--header would write its value into the client's file: give --header-env <name>=<VAR>",
      );
    }
    const bridgeSpec: OptionSpec | undefined = Object.hasOwn(OPTIONS, option)
      ? optionSpec(option as OptionName)
      : undefined;
    if (bridgeSpec?.flag !== undefined) {
      if (eq >= 0) throw new UsageError(`the option --${option} takes no value`);
      bridgeOptions.push(arg);
      continue;
    }
    const value = eq < 0 ? rest[(i += 1)] : arg.slice(eq + 1);
    if (value === undefined || (eq < 0 && value.startsWith('--')))
      throw new UsageError(`the option --${option} needs a value`);
    if (isOneOf(ADD_OPTIONS, option)) own.set(option, [...(own.get(option) ?? []), value]);
    else
      bridgeOptions.push(
        `--${option}`,
        FILE_OPTIONS.has(option) && !isAbsolute(value) ? resolve(cwd, value) : value,
      );
  }
  if (url === undefined && (command === undefined || command.length === 0 || command[0] === '')) {
    throw new UsageError('the upstream is missing: give its URL, or "--" and its command');
  }
  const last = (option: string): string | undefined => own.get(option)?.at(-1);
  const spec = CLIENT_SPECS[client];
  const scope = last('scope') ?? 'user';
  if (scope !== 'user' && scope !== 'project') throw new UsageError('--scope is user or project');
  if (!spec.scopes.includes(scope))
    throw new UsageError(`${spec.title} has no ${scope} scope: give --scope ${spec.scopes.join(' or ')}`);
  const name = last('name') ?? defaultName(command?.[0], url);
  if (!NAME.test(name)) {
    throw new UsageError('--name is 1 to 64 of A-Z a-z 0-9 _ -, starting with a letter');
  }
  const passEnv = own.get('pass-env') ?? [];
  if (!passEnv.every((variable) => VARIABLE.test(variable))) {
    throw new UsageError('--pass-env takes the name of an environment variable (A-Z a-z 0-9 _)');
  }
  const headerVars = bridgeOptions.flatMap((arg, i) =>
    bridgeOptions[i - 1] === '--header-env' ? [arg.slice(arg.indexOf('=') + 1)] : [],
  );
  if (!headerVars.every((variable) => VARIABLE.test(variable))) {
    throw new UsageError(
      '--header-env takes <name>=<VAR>, VAR the name of an environment variable (A-Z a-z 0-9 _)',
    );
  }
  const bridgeArgv =
    url === undefined ? [...bridgeOptions, '--', ...(command ?? [])] : [...bridgeOptions, url];
  // The bridge's own parse, each variable standing in for its value (which add never reads).
  const parsed = parseCommandLine(
    bridgeArgv,
    Object.fromEntries(headerVars.map((variable) => [variable, 'value-of-the-variable'])),
    '0.0.0',
    profileOf(client),
  );
  if (parsed.kind === 'error') throw new UsageError(parsed.message);
  const bridge = last('bridge');
  return {
    kind: 'add',
    request: {
      client,
      name,
      scope,
      force: own.has('force'),
      print: own.has('print'),
      ...(bridge === undefined ? {} : { bridge: /[\\/]/.test(bridge) ? resolve(cwd, bridge) : bridge }),
      bridgeArgv,
      envVars: [...new Set([...headerVars, ...passEnv])],
    },
  };
}
