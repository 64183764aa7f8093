/**
 * The whole executable's behaviour for a product's own stdio server: stdin and stdout wired to
 * the bridge of a profile, back-pressure, the signals, the watchdog after the end of stdin, and
 * the exit code (docs/lifecycle.md#lifecycle-end-of-input, docs/cli.md#cli-forms). The upstream, started or reached on
 * `initialize` (or a child started before), is upstreamConnector.ts. Node only.
 */
import type { Readable, Writable } from 'node:stream';
import { Subject, takeUntil, tap } from 'rxjs';
import { decodeLines } from '../../operators/decodeLines.js';
import { encodeFrames } from '../../operators/encodeFrames.js';
import { DEFAULT_LIMITS } from '../bridge/config.js';
import { DEFAULT_MAX_BYTES, packageVersion } from './bridgeOptions.js';
import type { BridgeProcessOptions } from './bridgeOptions.js';
import { exitLines, stdoutErrorLine } from './exitReport.js';
import { ajvInputChecks } from './inputChecks.js';
import { createStderrLogger } from './log.js';
import { createUpstreamConnector } from './upstreamConnector.js';
import type { StdioUpstream } from './upstreamConnector.js';
import { fallbackServerName } from '../codec/initializeResult.js';
import { SIGNAL_KILL_MS, signalExitCode } from '../edges/childStart.js';
import { createFlowControl } from '../edges/flowControl.js';
import { readChunks, writeLines } from '../edges/stdio.js';
import { createProfileBridge } from '../profiles/bridge.js';
import { flushMetrics, loadMetrics } from './metrics.js';
import { flushTracing, loadTracing } from './telemetry.js';
import { fanOutSignIn, fanOutTelemetry } from './telemetryFanout.js';
import type { Profile } from '../profiles/profile.js';

export type { StdioUpstream } from './upstreamConnector.js';
export type { BridgeProcessOptions } from './bridgeOptions.js';

/** Settings of serveStdio: those of the bridge (BridgeProcessOptions) and of stdio. */
export interface ServeStdioOptions extends BridgeProcessOptions {
  /** After the end of stdin, how long the bridge may take to stop, in ms. Default 8000 (docs/lifecycle.md#lifecycle-end-of-input). */
  readonly watchdogMs?: number;
  /** Warnings logged at start (e.g. from the product's own option checks). */
  readonly warnings?: readonly string[];
  /** Default process.stdin and process.stdout. */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /**
   * The scope of serveStdio's own log lines (the start warnings, the watchdog, a failed stdout);
   * default `bridge`. `mcp-bridge-vscode` logs them under `vscode` (docs/lifecycle.md#lifecycle-end-of-input).
   */
  readonly scope?: string;
}

/** docs/lifecycle.md#lifecycle-end-of-input: the watchdog after the end of stdin. */
export const DEFAULT_WATCHDOG_MS = 8_000;

/**
 * Serves one MCP 2025-11-25 client on stdio from a 2026-07-28 upstream, as `mcp-bridge-vscode`
 * does, and resolves with the exit code (docs/cli.md#cli-forms): 0 after the end of stdin (or
 * a first SIGTERM/SIGINT, or the watchdog), 1 when the upstream stopped or the bridge failed, 130
 * or 143 for a SIGINT or SIGTERM that came while it stopped after an earlier one (README "Command
 * line"). It handles SIGTERM and SIGINT until it resolves. The caller exits with the code; no
 * `process.exit` happens here.
 *
 * @example
 * import { genericProfile } from 'mcp-bridge-sdk';
 * import { serveStdio } from 'mcp-bridge-sdk/node';
 * const code = await serveStdio(genericProfile, { kind: 'command', argv: ['node', 'server.js'] });
 * process.exit(code);
 */
export async function serveStdio(
  profile: Profile,
  upstream: StdioUpstream,
  options: ServeStdioOptions = {},
): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const logger = options.logger ?? createStderrLogger('info', undefined, profile.name);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_BYTES;
  const watchdogMs = options.watchdogMs ?? DEFAULT_WATCHDOG_MS;
  const scope = options.scope ?? 'bridge';
  const signIn = options.signIn;
  for (const warning of options.warnings ?? []) logger.log(scope, 'warn', warning);
  const version = options.version ?? packageVersion();
  // docs/observability.md#observability-switch: undefined (and nothing loaded) unless the environment turns tracing on.
  const tracing = await loadTracing(process.env, logger, version);
  // docs/observability.md#observability-metrics: OTLP metrics when OTEL_METRICS_EXPORTER turns them on.
  const metrics = await loadMetrics(process.env, logger, version, false);
  const telemetry = fanOutTelemetry(
    tracing?.forConnection({ transport: 'pipe' }),
    metrics?.forConnection({ transport: 'pipe' }),
  );
  // docs/observability.md#observability-sign-in: the sign-in's spans and counters, when on.
  const signInTelemetry = fanOutSignIn(tracing?.signIn, metrics?.signIn);
  if (signInTelemetry !== undefined) signIn?.auth.observe?.(signInTelemetry);
  // A client that does not read stdout stops the reading of stdin and of the upstream.
  const flow = createFlowControl(stdout, [stdin]);
  const connector = createUpstreamConnector({
    upstream,
    logger,
    flow,
    maxLineBytes,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_BYTES,
    env: options.env ?? process.env,
    auth: signIn?.auth,
  });
  const fallbackName = fallbackServerName({
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(upstream.kind === 'command' ? { command: upstream.argv[0] ?? '' } : { url: upstream.url }),
    profileName: profile.name,
  });
  const profileBridge = createProfileBridge(
    profile,
    {
      version,
      fallbackName,
      limits: { ...DEFAULT_LIMITS, ...options.limits },
    },
    {
      connect: connector.connect,
      logger,
      checks: options.checks ?? ajvInputChecks,
      ...(signIn === undefined ? {} : { consent: signIn.consent, signIn$: signIn.auth.signedIn$ }),
      ...(telemetry === undefined ? {} : { telemetry }),
    },
  );
  const bridge = options.compose === undefined ? profileBridge : options.compose(profileBridge);

  // The signals (README "Command line"): the first SIGTERM or SIGINT stops the bridge as the end
  // of stdin does, and sends SIGTERM to the child's process group at once, SIGKILL SIGNAL_KILL_MS
  // later; a repeated one kills the group at once and ends the serve with 128 + its number. The
  // handlers stay until serveStdio resolves: no signal may take Node's default action, an exit
  // that would leave the child running in its own process group.
  const stop$ = new Subject<void>();
  let signalled = false;
  let killTimer: NodeJS.Timeout | undefined;
  let forcedCode: number | undefined;
  let force: () => void = () => undefined;
  const forced = new Promise<void>((resolve) => {
    force = resolve;
  });
  let resolveCode: (code: number) => void = () => undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!signalled) {
      signalled = true;
      stop$.next();
      connector.terminate();
      killTimer = setTimeout(connector.kill, SIGNAL_KILL_MS);
      return;
    }
    connector.kill();
    forcedCode ??= signalExitCode(signal);
    resolveCode(forcedCode);
    force();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // EPIPE: the client went away, stdin's end follows; any other write error is logged.
  const onStdoutError = (error: unknown): void => {
    const line = stdoutErrorLine(error);
    if (line !== undefined) logger.log(scope, line.level, line.text);
  };
  stdout.on('error', onStdoutError);

  let watchdog: NodeJS.Timeout | undefined;
  let watchdogFired = false;
  const armWatchdog = (): void => {
    watchdog ??= setTimeout(() => {
      watchdogFired = true;
      logger.log(
        scope,
        'warn',
        `the bridge did not stop in ${watchdogMs / 1000} s after the end of stdin, thus it stops now`,
      );
      connector.kill();
      resolveCode(0);
    }, watchdogMs);
    watchdog.unref();
  };
  const stopSubscription = stop$.subscribe(armWatchdog);

  const chunks$ = readChunks(stdin).pipe(takeUntil(stop$));
  const inbound$ = chunks$.pipe(tap({ complete: armWatchdog }), decodeLines({ maxLineBytes }));
  const code = await new Promise<number>((resolve) => {
    resolveCode = resolve;
    inbound$
      .pipe(
        bridge,
        encodeFrames({ rawResults: true }),
        tap(() => flow.check()),
        writeLines(stdout),
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
  // The child's bounded exit, and a prestarted child that no initialize adopted (docs/lifecycle.md#lifecycle-end-of-input);
  // a repeated signal ends this wait too.
  await Promise.race([connector.settle(watchdogFired || forcedCode !== undefined), forced]);
  if (watchdog !== undefined) clearTimeout(watchdog);
  if (killTimer !== undefined) clearTimeout(killTimer);
  // After a signal, what is left of the child's process group (a process it started) goes too.
  if (signalled) connector.kill();
  stopSubscription.unsubscribe();
  // Removed a turn later: a caller that exits with the code (the executable) does so first, so a
  // signal between the end of the serve and the exit never takes Node's default action.
  setImmediate(() => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  });
  stdout.off('error', onStdoutError);
  await Promise.all([
    tracing === undefined ? undefined : flushTracing(tracing),
    metrics === undefined ? undefined : flushMetrics(metrics),
  ]);
  return forcedCode ?? code;
}
