#!/usr/bin/env node
/**
 * The executables `mcp-bridge-vscode` and `mcp-bridge` (the profile of entryProfile.ts): parses
 * the command line, sets up the sign-in, and serves through serveStdio (src/node/serveStdio.ts),
 * which wires stdio, the upstream and the bridge and maps how the bridge ended to an exit code
 * (reference-behaviors.md §8):
 * 0 end of stdin, help or version; 1 upstream stopped or internal failure; 2 invalid arguments, or
 * a forced token store that does not open. `logout` has the exit codes of §6.12 (src/cli/logout.ts).
 */
// First: a setting of the process that must hold before the modules below allocate.
import './youngGeneration.js';
import type { Logger } from '../bridge/log.js';
import { parseCommandLine } from './args.js';
import type { ServeOptions } from './args.js';
import { usageText } from './help.js';
import { exitLines } from '../node/exitReport.js';
import { createStderrLogger, formatDiagnostic, formatLogLine } from '../node/log.js';
import { serveStdio } from '../node/serveStdio.js';
import type { StdioUpstream } from '../node/serveStdio.js';
import type { SignInSetup } from './signInSetup.js';
import { packageVersion } from './version.js';
import type { Profile } from '../profiles/profile.js';
import { selectedProfile } from './entryProfile.js';

/** The sign-in of a URL upstream (issue #11), loaded only when it is on (start-up time). */
async function startSignIn(
  options: ServeOptions,
  url: string,
  logger: Logger,
  profile: Profile,
): Promise<SignInSetup | undefined> {
  if (options.signIn === undefined) return undefined;
  const { setUpSignIn } = await import('./signInSetup.js');
  return setUpSignIn(
    {
      url,
      signIn: options.signIn,
      env: process.env,
      profile,
      ...(options.caPem === undefined ? {} : { caPem: options.caPem }),
    },
    logger,
  );
}

/** The upstream of serveStdio: the command, or the URL with its headers and `--ca-file`. */
function stdioUpstream(options: ServeOptions): StdioUpstream {
  const upstream = options.upstream;
  if (upstream.kind === 'command') return upstream;
  return {
    kind: 'url',
    url: upstream.url,
    headers: options.headers.map(({ name, value }) => ({ name, value })),
    ...(options.caPem === undefined ? {} : { caPem: options.caPem }),
  };
}

/**
 * The serve form: what only the command line adds (its warnings, the sign-in and its token
 * store, exit code 2 when a forced store does not open) around serveStdio, which holds the
 * whole executable's behaviour: back-pressure, signals, the watchdog, exit codes and exit lines.
 */
async function serve(options: ServeOptions, logger: Logger, profile: Profile): Promise<number> {
  // Before the sign-in's store line, as the order of the lines has always been.
  for (const warning of options.warnings) logger.log('vscode', 'warn', warning);
  const upstream = options.upstream;
  const signIn =
    upstream.kind === 'url' ? await startSignIn(options, upstream.url, logger, profile) : undefined;
  if (signIn?.ok === false) {
    process.stderr.write(`${formatDiagnostic(signIn.message, profile.name)}\n`);
    return 2;
  }
  const code = await serveStdio(profile, stdioUpstream(options), {
    version: packageVersion(),
    ...(options.name === undefined ? {} : { name: options.name }),
    logger,
    limits: { discoverTimeoutMs: options.discoverTimeoutMs },
    maxLineBytes: options.maxLineBytes,
    maxResponseBytes: options.maxResponseBytes,
    env: process.env,
    scope: 'vscode',
    ...(signIn === undefined ? {} : { signIn: { auth: signIn.auth, consent: signIn.consent } }),
  });
  signIn?.close();
  return code;
}

export async function main(argv: readonly string[], profile: Profile): Promise<number> {
  const parsed = parseCommandLine(argv, process.env, packageVersion(), profile);
  switch (parsed.kind) {
    case 'help':
    case 'version':
      process.stdout.write(`${parsed.text}\n`);
      return 0;
    case 'error':
      process.stderr.write(`${formatDiagnostic(parsed.message, profile.name)}\n${usageText(profile)}\n`);
      return 2;
    case 'serve':
      return serve(
        parsed.options,
        createStderrLogger(parsed.options.logLevel, undefined, profile.name),
        profile,
      );
    case 'logout': {
      // Loaded for logout only: the token stores are not part of the other forms' start-up.
      const { logoutEnvironment, runLogout } = await import('./logout.js');
      return runLogout(
        parsed.options,
        createStderrLogger(parsed.options.logLevel, undefined, profile.name),
        logoutEnvironment(profile),
      );
    }
  }
}

main(process.argv.slice(2), selectedProfile()).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // A failure before or after the bridge ran: the level is unknown here, hence no stack.
    for (const line of exitLines(error, false))
      process.stderr.write(formatLogLine('bridge', line.level, line.text, selectedProfile().name));
    process.exit(1);
  },
);
