#!/usr/bin/env node
/**
 * The executable `mcp-bridge-vscode`: parses the command line, wires stdio, the upstream and the
 * bridge, and maps how the bridge ended to an exit code (reference-behaviors.md §8):
 * 0 end of stdin, help or version; 1 upstream stopped or internal failure; 2 invalid arguments, or
 * a forced token store that does not open. `logout` has the exit codes of §6.12 (src/cli/logout.ts).
 */
// First: a setting of the process that must hold before the modules below allocate.
import './youngGeneration.js';
import { Subject, defer, firstValueFrom, map, takeUntil, tap } from 'rxjs';
import type { Observable } from 'rxjs';
import { decodeLines } from '../../operators/decodeLines.js';
import { encodeFrames } from '../../operators/encodeFrames.js';
import { DEFAULT_LIMITS } from '../bridge/config.js';
import type { Logger } from '../bridge/log.js';
import { createRpcConnection } from '../bridge/rpcConnection.js';
import type { UpstreamAuth } from '../bridge/signInPorts.js';
import type { UpstreamConnection } from '../bridge/upstream.js';
import { fallbackServerName } from '../codec/initializeResult.js';
import { killGroup, spawnChildUpstream } from '../edges/childProcess.js';
import { createFlowControl } from '../edges/flowControl.js';
import { responseBodies } from '../edges/bodyGate.js';
import type { FlowControl } from '../edges/flowControl.js';
import { readChunks, writeLines } from '../edges/stdio.js';
import { parseCommandLine } from './args.js';
import type { ServeOptions } from './args.js';
import { usageText } from './help.js';
import { exitLines, stdoutErrorLine } from '../node/exitReport.js';
import { createStderrLogger, formatDiagnostic, formatLogLine } from '../node/log.js';
import type { SignInSetup } from './signInSetup.js';
import { packageVersion } from './version.js';
import { createProfileBridge } from '../profiles/bridge.js';
import type { Profile } from '../profiles/profile.js';
import { selectedProfile } from './entryProfile.js';

/** reference-behaviors.md §2.13: the watchdog after the end of stdin. */
const WATCHDOG_MS = 8_000;
/** How long the child may take to exit after its stdin closed, before SIGTERM then SIGKILL. */
const CHILD_STOP_GRACE_MS = 1_000;

interface ChildTracker {
  pid: number | undefined;
  exited: Promise<unknown> | undefined;
}

function connector(
  options: ServeOptions,
  logger: Logger,
  child: ChildTracker,
  caPem: string | undefined,
  flow: FlowControl,
  auth: UpstreamAuth | undefined,
): () => Observable<UpstreamConnection> {
  const upstream = options.upstream;
  if (upstream.kind === 'url') {
    // The response bodies pause with stdin while the client does not read (bodyGate.ts).
    flow.add(responseBodies);
    // Loaded for a URL only: the HTTP edge and undici take 150 ms or more of every start-up.
    return () =>
      defer(() => import('../edges/http/httpUpstream.js')).pipe(
        map(({ createHttpUpstream }) =>
          createHttpUpstream(
            {
              url: upstream.url,
              headers: options.headers.map(({ name, value }) => ({ name, value })),
              maxResponseBytes: options.maxResponseBytes,
              ...(caPem === undefined ? {} : { caPem }),
              env: process.env,
              ...(auth === undefined ? {} : { auth }),
            },
            logger,
          ),
        ),
      );
  }
  return () =>
    spawnChildUpstream(
      { argv: upstream.argv, maxLineBytes: options.maxLineBytes, stopGraceMs: CHILD_STOP_GRACE_MS },
      logger,
    ).pipe(
      map((transport) => {
        child.pid = transport.pid;
        child.exited = firstValueFrom(transport.exit$, { defaultValue: undefined });
        flow.add(transport);
        return createRpcConnection(transport, logger);
      }),
    );
}

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

async function serve(options: ServeOptions, logger: Logger, profile: Profile): Promise<number> {
  const caPem = options.caPem;
  for (const warning of options.warnings) logger.log('vscode', 'warn', warning);
  const child: ChildTracker = { pid: undefined, exited: undefined };
  // A client that does not read stdout stops the reading of stdin and of the upstream.
  const flow = createFlowControl(process.stdout, [process.stdin]);
  const upstream = options.upstream;
  const fallbackName = fallbackServerName({
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(upstream.kind === 'command' ? { command: upstream.argv[0] ?? '' } : { url: upstream.url }),
    profileName: profile.name,
  });
  const signIn =
    upstream.kind === 'url' ? await startSignIn(options, upstream.url, logger, profile) : undefined;
  if (signIn?.ok === false) {
    process.stderr.write(`${formatDiagnostic(signIn.message, profile.name)}\n`);
    return 2;
  }
  const auth = signIn?.auth;
  const bridge = createProfileBridge(
    profile,
    {
      version: packageVersion(),
      fallbackName,
      limits: { ...DEFAULT_LIMITS, discoverTimeoutMs: options.discoverTimeoutMs },
    },
    {
      connect: connector(options, logger, child, caPem, flow, auth),
      logger,
      ...(signIn === undefined ? {} : { consent: signIn.consent, signIn$: signIn.auth.signedIn$ }),
    },
  );

  const stop$ = new Subject<void>();
  const onSignal = (): void => stop$.next();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  // EPIPE: the client went away, stdin's end follows; any other write error is logged (issue 10 item 3).
  process.stdout.on('error', (error) => {
    const line = stdoutErrorLine(error);
    if (line !== undefined) logger.log('vscode', line.level, line.text);
  });

  let watchdog: NodeJS.Timeout | undefined;
  const armWatchdog = (): void => {
    watchdog ??= setTimeout(() => {
      logger.log(
        'vscode',
        'warn',
        `the bridge did not stop in ${WATCHDOG_MS / 1000} s after the end of stdin, thus it stops now`,
      );
      killGroup(child.pid);
      process.exit(0);
    }, WATCHDOG_MS);
    watchdog.unref();
  };
  stop$.subscribe(armWatchdog);

  const chunks$ = readChunks(process.stdin).pipe(takeUntil(stop$));
  const inbound$ = chunks$.pipe(
    tap({ complete: armWatchdog }),
    decodeLines({ maxLineBytes: options.maxLineBytes }),
  );
  const code = await new Promise<number>((resolve) => {
    inbound$
      .pipe(
        bridge,
        encodeFrames(),
        tap(() => flow.check()),
        writeLines(process.stdout),
      )
      .subscribe({
        complete: () => resolve(0),
        error: (error: unknown) => {
          for (const line of exitLines(error, logger.enabled('debug')))
            logger.log('bridge', line.level, line.text);
          resolve(1);
        },
      });
  });
  // Give the child a bounded time to exit after its stdin closed (the edge escalates to signals).
  if (child.exited !== undefined) {
    await Promise.race([
      child.exited,
      new Promise((done) => setTimeout(done, 3 * CHILD_STOP_GRACE_MS).unref()),
    ]);
  }
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
