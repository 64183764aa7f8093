/**
 * The executables `mcp-bridge-vscode` and `mcp-bridge` (the profile of entryProfile.ts), loaded by
 * main.ts once it started the upstream command: parses the command line, sets up the sign-in, and
 * serves through serveStdio (src/node/serveStdio.ts), which wires stdio, the upstream and the
 * bridge and maps how the bridge ended to an exit code (docs/cli.md#cli-forms):
 * 0 end of stdin (or a first SIGTERM/SIGINT), help or version; 1 upstream stopped or internal
 * failure; 2 invalid arguments, or a forced token store that does not open; 130/143 a SIGINT or
 * SIGTERM while the bridge stops after an earlier one (also prestart.ts, before serveStdio). `logout` and `status` have their own (src/cli/logout.ts,
 * src/cli/status.ts).
 */
import { map } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import type { Logger } from '../ports/logger.js';
import type { Inbound } from '../protocol/parseLine.js';
import type { Frame } from '../protocol/jsonrpc.js';
import { executableInputChecks, preloadInputChecks } from './inputChecks.js';
import { executableMessages, withExecutableMessage } from './errorTexts.js';
import type { ParsedCommand, ServeOptions } from './args.js';
import { commandFormOptions } from './commandForm.js';
import { exitLines } from '../node/exitReport.js';
import { createStderrLogger, formatDiagnostic, formatLogLine } from '../node/log.js';
import { serveStdio } from '../node/serveStdio.js';
import type { StdioUpstream } from '../node/serveStdio.js';
import type { SignInSetup } from './signInSetup.js';
import { packageVersion } from './version.js';
import type { Profile } from '../profiles/profile.js';
import { CHILD_STOP_GRACE_MS, sameArgv } from '../edges/childStart.js';
import { dropPrestart } from './prestart.js';
import { listenLimits } from './listenLimits.js';
import type { Prestart } from './prestart.js';

/** The sign-in of a URL upstream, loaded only when it is on (start-up time). */
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

/**
 * The bridge with the executable's error messages (errorTexts.ts), and ajv with the 2025-11-25
 * schema loaded right after the `initialize` result is written (src/cli/inputChecks.ts): off the
 * start-up path, yet usually before an input round.
 */
export const executableBridge =
  (profile: Profile) =>
  (bridge: OperatorFunction<Inbound, Frame>): OperatorFunction<Inbound, Frame> => {
    const messages = executableMessages(profile);
    let waiting = true;
    return (lines$) =>
      lines$.pipe(
        bridge,
        map((frame) => {
          if (waiting && 'result' in frame && typeof frame.result['protocolVersion'] === 'string') {
            waiting = false;
            // The frame is written after this step, in this turn: load in the next one.
            setImmediate(preloadInputChecks);
          }
          return withExecutableMessage(frame, messages);
        }),
      );
  };

/**
 * The upstream of serveStdio: the command (with the child main.ts started for it), or
 * the URL with its headers and `--ca-file`.
 */
function stdioUpstream(options: ServeOptions, prestarted: Prestart | undefined): StdioUpstream {
  const upstream = options.upstream;
  if (upstream.kind === 'command') {
    return prestarted === undefined ? upstream : { ...upstream, prestarted: prestarted.child };
  }
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
async function serve(
  options: ServeOptions,
  logger: Logger,
  profile: Profile,
  early: Prestart | undefined,
): Promise<number> {
  // Before the sign-in's store line, as the order of the lines has always been.
  for (const warning of options.warnings) logger.log(profile.logScope, 'warn', warning);
  const upstream = options.upstream;
  // Adopted only for the very command the full parse found (the pre-scan agrees by design).
  const adopt =
    upstream.kind === 'command' && early !== undefined && sameArgv(early.child.argv, upstream.argv);
  if (!adopt) await dropPrestart(early, CHILD_STOP_GRACE_MS);
  const signIn =
    upstream.kind === 'url' ? await startSignIn(options, upstream.url, logger, profile) : undefined;
  if (signIn?.ok === false) {
    process.stderr.write(`${formatDiagnostic(signIn.message, profile.name, profile.logScope)}\n`);
    return 2;
  }
  // Synchronously up to serveStdio's own handlers: a SIGTERM or SIGINT that came while the CLI
  // loaded stops the bridge as it would have stopped it before initialize (exit code 0, docs/sign-in.md#sign-in-trigger); the
  // child got SIGTERM already (prestart.ts), whose handlers stay for a repeated signal.
  if (adopt && early.takeSignal()) {
    await dropPrestart(early, CHILD_STOP_GRACE_MS);
    return 0;
  }
  const code = await serveStdio(profile, stdioUpstream(options, adopt ? early : undefined), {
    version: packageVersion(),
    ...(options.name === undefined ? {} : { name: options.name }),
    logger,
    limits: { discoverTimeoutMs: options.discoverTimeoutMs, ...listenLimits(options) },
    maxLineBytes: options.maxLineBytes,
    maxResponseBytes: options.maxResponseBytes,
    env: process.env,
    scope: profile.logScope,
    checks: executableInputChecks,
    compose: executableBridge(profile),
    ...(signIn === undefined ? {} : { signIn: { auth: signIn.auth, consent: signIn.consent } }),
  });
  signIn?.close();
  return code;
}

/**
 * Runs the command line `argv` with the executable's profile; `early` is the upstream child that
 * main.ts started for it, adopted by serveStdio or stopped here. Resolves with the exit code.
 */
export async function main(argv: readonly string[], profile: Profile, early?: Prestart): Promise<number> {
  // The command form without yargs (commandForm.ts); the other forms load the full parse.
  const fast = commandFormOptions(argv);
  const parsed: ParsedCommand =
    fast === undefined
      ? (await import('./args.js')).parseCommandLine(argv, process.env, packageVersion(), profile)
      : { kind: 'serve', options: fast };
  if (parsed.kind === 'serve-http') {
    // The HTTP front end starts no child before the parse (prestart.ts sees no command form).
    await dropPrestart(early, CHILD_STOP_GRACE_MS);
    const { runServeHttp } = await import('./serveHttpCli.js');
    return runServeHttp(
      parsed.options,
      parsed.http,
      createStderrLogger(parsed.options.logLevel, undefined, profile.name),
      profile,
    );
  }
  if (parsed.kind === 'serve') {
    return serve(
      parsed.options,
      createStderrLogger(parsed.options.logLevel, undefined, profile.name),
      profile,
      early,
    );
  }
  try {
    return await notServe(parsed, profile);
  } finally {
    // Only the command form starts a child before the parse; invalid arguments (exit 2) stop it.
    await dropPrestart(early, CHILD_STOP_GRACE_MS);
  }
}

/** Help, version, invalid arguments, logout and status. */
async function notServe(
  parsed: Exclude<ParsedCommand, { kind: 'serve' | 'serve-http' }>,
  profile: Profile,
): Promise<number> {
  switch (parsed.kind) {
    case 'help':
    case 'version':
      process.stdout.write(`${parsed.text}\n`);
      return 0;
    case 'error': {
      // Loaded for this answer only: the help texts are not part of the bridge's start-up.
      const { usageText } = await import('./help.js');
      process.stderr.write(
        `${formatDiagnostic(parsed.message, profile.name, profile.logScope)}\n${usageText(profile)}\n`,
      );
      return 2;
    }
    case 'logout': {
      // Loaded for logout only: the token stores are not part of the other forms' start-up.
      const { logoutEnvironment, runLogout } = await import('./logout.js');
      return runLogout(
        parsed.options,
        createStderrLogger(parsed.options.logLevel, undefined, profile.name),
        logoutEnvironment(profile),
      );
    }
    case 'status': {
      const [{ accountEnvironment }, { runStatus }] = await Promise.all([
        import('./accountStores.js'),
        import('./status.js'),
      ]);
      return runStatus(
        parsed.options,
        createStderrLogger(parsed.options.logLevel, undefined, profile.name),
        accountEnvironment(profile),
      );
    }
  }
}

/** Runs main and exits with its code; a failure exits with 1 after stopping the child. */
export function run(argv: readonly string[], profile: Profile, early: Prestart | undefined): void {
  main(argv, profile, early).then(
    (code) => process.exit(code),
    async (error: unknown) => {
      // A failure before or after the bridge ran: the level is unknown here, hence no stack.
      for (const line of exitLines(error, false))
        process.stderr.write(formatLogLine('bridge', line.level, line.text, profile.name));
      await dropPrestart(early, CHILD_STOP_GRACE_MS);
      process.exit(1);
    },
  );
}
