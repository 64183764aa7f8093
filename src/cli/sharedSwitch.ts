/**
 * Whether this start is a shim of the shared bridge (docs/shared.md#shared-switch), decided by
 * main.ts before anything heavy loads: `--shared` among the options (before `--`) or
 * `MCP_BRIDGE_SHARED=1`, for the stdio forms only (`-- <command>` and `<url>`). The shared options
 * (`--shared`, `--shared-grace <s>`, `--shared-idle <s>`) are taken out of the command line here,
 * so the bridge's own parse never sees them. Pure.
 */

/** The first words that are commands of their own, never shared. */
export const COMMANDS: ReadonlySet<string> = new Set([
  'add',
  'doctor',
  'shared',
  'serve',
  'logout',
  'status',
]);
/** Options that print and exit: never shared. */
const PRINTING = new Set(['--help', '-h', '--version', '-v', '-V']);

export type SharedSwitch =
  | { readonly kind: 'off'; readonly argv: readonly string[] }
  | {
      readonly kind: 'on';
      readonly argv: readonly string[];
      readonly graceMs?: number;
      readonly idleSeconds?: number;
    }
  | { readonly kind: 'error'; readonly message: string };

/** Whole seconds from 0 to one day, as `--shared-grace` and `--shared-idle` take them. */
function seconds(name: string, text: string | undefined): number | string {
  if (text === undefined || !/^\d{1,5}$/.test(text) || Number(text) > 86_400) {
    return `${name} needs whole seconds from 0 to 86400, not '${text ?? ''}'`;
  }
  return Number(text);
}

export function sharedSwitch(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): SharedSwitch {
  if (argv[0] !== undefined && COMMANDS.has(argv[0])) return { kind: 'off', argv };
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  const rest = end === -1 ? [] : argv.slice(end);
  const kept: string[] = [];
  let flag = false;
  let printing = false;
  let grace: number | undefined;
  let idle: number | undefined;
  for (let i = 0; i < options.length; i++) {
    const arg = options[i]!;
    const [name, inline] =
      arg.startsWith('--shared-') && arg.includes('=') ? arg.split('=', 2) : [arg, undefined];
    if (name === '--shared') flag = true;
    else if (name === '--shared-grace' || name === '--shared-idle') {
      const value = seconds(name, inline ?? options[++i]);
      if (typeof value === 'string') return { kind: 'error', message: value };
      if (name === '--shared-grace') grace = value;
      else idle = value;
    } else {
      if (PRINTING.has(arg)) printing = true;
      kept.push(arg);
    }
  }
  const stripped = [...kept, ...rest];
  if (printing || !(flag || env['MCP_BRIDGE_SHARED'] === '1')) return { kind: 'off', argv: stripped };
  return {
    kind: 'on',
    argv: stripped,
    ...(grace === undefined ? {} : { graceMs: grace * 1000 }),
    ...(idle === undefined ? {} : { idleSeconds: idle }),
  };
}
