/**
 * `mcp-bridge add <client> …` (docs/install.md#install-add): writes, or with --print shows, the
 * entry that starts the bridge in the client's own file and format. Loaded by main.ts before the
 * rest of the CLI: no RxJS and no bridge on this path. Exit codes: 0 written, already there or
 * printed; 1 a different entry of the name without --force, or a file that cannot be read,
 * merged or written; 2 invalid arguments.
 */
import { homedir } from 'node:os';
import { formatDiagnostic } from '../../node/log.js';
import { genericProfile } from '../../profiles/generic.js';
import { vscodeProfile } from '../../profiles/vscode.js';
import type { Profile } from '../../profiles/profile.js';
import { UsageError } from '../usageError.js';
import { packageVersion } from '../version.js';
import { parseAdd } from './addArgs.js';
import type { AddRequest } from './addArgs.js';
import { CLIENT_SPECS } from './clients.js';
import type { Launch } from './clients.js';
import { readConfig, writeConfig } from './configFile.js';
import { configPath } from './configPath.js';
import type { Place } from './configPath.js';
import { mergeJson } from './jsonMerge.js';
import type { MergeResult } from './merge.js';
import { mergeToml, tomlTable } from './tomlMerge.js';
import { addHelpText } from './addHelp.js';

/** What `add` needs of the machine; tests give a throwaway home. */
export interface AddEnvironment extends Place {
  readonly version: string;
  /** The path of this executable when it is a single executable (SEA), else undefined. */
  readonly seaPath?: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const profileOf = (client: string): Profile => (client === 'vscode' ? vscodeProfile : genericProfile);

/**
 * How the client starts the bridge: --bridge, else this single executable, else the package at
 * this very version through npx (through cmd.exe on Windows, where npx is a .cmd script that a
 * client spawning without a shell cannot start).
 */
export function launchOf(request: AddRequest, environment: AddEnvironment): Launch {
  const direct = request.bridge ?? environment.seaPath;
  if (direct !== undefined) return { command: direct, args: request.bridgeArgv, envVars: request.envVars };
  const npx = ['-y', '-p', `mcp-bridge-sdk@${environment.version}`, CLIENT_SPECS[request.client].executable];
  return environment.platform === 'win32'
    ? { command: 'cmd', args: ['/c', 'npx', ...npx, ...request.bridgeArgv], envVars: request.envVars }
    : { command: 'npx', args: [...npx, ...request.bridgeArgv], envVars: request.envVars };
}

/** The entry as the client's file would hold it, for --print. */
function printed(request: AddRequest, entry: Readonly<Record<string, unknown>>): string {
  const spec = CLIENT_SPECS[request.client];
  return spec.format === 'toml'
    ? tomlTable(spec.key, request.name, entry)
    : `${JSON.stringify({ [spec.key]: { [request.name]: entry } }, null, 2)}\n`;
}

function merge(request: AddRequest, text: string, entry: Readonly<Record<string, unknown>>): MergeResult {
  const spec = CLIENT_SPECS[request.client];
  return spec.format === 'toml'
    ? mergeToml(text, spec.key, request.name, entry, request.force)
    : mergeJson(text, spec.key, request.name, entry, {
        force: request.force,
        comments: spec.format === 'jsonc',
      });
}

async function add(request: AddRequest, environment: AddEnvironment, program: string): Promise<number> {
  const spec = CLIENT_SPECS[request.client];
  const entry = spec.entry(launchOf(request, environment));
  const error = (message: string): number => {
    environment.stderr(`${formatDiagnostic(message, program, 'add')}\n`);
    return 1;
  };
  const file = configPath(request.client, request.scope, environment);
  if (request.print) {
    environment.stdout(printed(request, entry));
    return 0;
  }
  const read = await readConfig(file);
  if (read.kind === 'error') return error(read.message);
  const result = merge(request, read.text, entry);
  switch (result.kind) {
    case 'invalid':
      return error(`${file} is left as it is: ${result.message}`);
    case 'conflict':
      return error(
        `${file} has another entry named "${request.name}": give --force to replace it, or another --name`,
      );
    case 'same':
      environment.stdout(`"${request.name}" is in ${file} already, unchanged\n`);
      return 0;
    case 'merged':
      try {
        await writeConfig(read.path, result.text, read.mode ?? (request.scope === 'user' ? 0o600 : 0o644));
      } catch (cause) {
        const code =
          typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : 'error';
        return error(`${file} cannot be written (${code})`);
      }
      environment.stdout(
        `${result.replaced ? 'replaced' : 'added'} "${request.name}" in ${file} (${spec.title})\n`,
      );
      if (spec.envNote !== undefined && request.envVars.length > 0) environment.stdout(`${spec.envNote}\n`);
      return 0;
  }
}

/** Runs `add` with the arguments after the word `add`; resolves with the exit code. */
export async function runAdd(
  args: readonly string[],
  program: string,
  environment: AddEnvironment,
): Promise<number> {
  let parsed;
  try {
    parsed = parseAdd(args, environment.cwd, profileOf);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    environment.stderr(
      `${formatDiagnostic(error.message, program, 'add')}\nRun "${program} add --help" for the clients and options.\n`,
    );
    return 2;
  }
  if (parsed.kind === 'help') {
    environment.stdout(`${addHelpText(program)}\n`);
    return 0;
  }
  return add(parsed.request, environment, program);
}

/** The environment of this process. */
export async function processAddEnvironment(): Promise<AddEnvironment> {
  let seaPath: string | undefined;
  try {
    const sea = await import('node:sea');
    if (sea.isSea()) seaPath = process.execPath;
  } catch {
    // No node:sea before Node 20.12: not a single executable.
  }
  return {
    env: process.env,
    platform: process.platform,
    cwd: process.cwd(),
    homedir: homedir(),
    version: packageVersion(),
    ...(seaPath === undefined ? {} : { seaPath }),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  };
}

/** main.ts's call: runs `add` in this process and sets its exit code. */
export function runAddCommand(args: readonly string[], program: string): void {
  processAddEnvironment()
    .then((environment) => runAdd(args, program, environment))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (error: unknown) => {
        process.stderr.write(
          `${formatDiagnostic(`add failed: ${error instanceof Error ? error.name : 'error'}`, program, 'add')}\n`,
        );
        process.exitCode = 1;
      },
    );
}
