/**
 * The telemetry of one sharing key of the shared process (docs/shared.md#shared-telemetry): the
 * traces and metrics that the stdio bridge would start for the entry's environment, started once
 * with the key's upstream (the `OTEL_*` variables are part of the key, so every session of a key
 * has the same setting), given to each session as serveStdio gives it to its bridge
 * (`network.transport` `pipe`: the client sees a stdio bridge), and flushed when the key's upstream
 * stops (at most 2 s, docs/observability.md#observability-switch). The rule of the switch is
 * otlpSwitch.ts through loadTracing and loadMetrics; nothing of OpenTelemetry loads when it is off.
 */
import type { Logger, LogLevel } from '../ports/logger.js';
import type { SignInTelemetry, Telemetry } from '../ports/telemetry.js';
import { flushMetrics, loadMetrics } from './metrics.js';
import type { Env } from './otlpSwitch.js';
import type { SharedSignIn } from './sharedPlan.js';
import { flushTracing, loadTracing } from './telemetry.js';
import { fanOutSignIn, fanOutTelemetry } from './telemetryFanout.js';

/** One line of the switch (a warning), kept to be written to each session's stderr. */
export interface SwitchLine {
  readonly scope: string;
  readonly level: LogLevel;
  readonly text: string;
}

/** The telemetry of a key. */
export interface KeyTelemetry {
  /** The lines the stdio bridge would write at its start; each session of the key writes them. */
  readonly lines: readonly SwitchLine[];
  /** A session's Telemetry; undefined when traces and metrics are off. */
  readonly forSession: () => Telemetry | undefined;
  /** The sign-in's spans and counters (UpstreamAuth.observe); undefined when off. */
  readonly signIn: SignInTelemetry | undefined;
  /** Exports what is left and stops, in at most 2 s. */
  readonly flush: () => Promise<void>;
}

/** Starts the telemetry that `env` (the shim's environment) asks for. */
export async function startKeyTelemetry(env: Env, version: string): Promise<KeyTelemetry> {
  const lines: SwitchLine[] = [];
  const keep: Logger = {
    enabled: () => true,
    log: (scope, level, text) => lines.push({ scope, level, text }),
  };
  const tracing = await loadTracing(env, keep, version);
  const metrics = await loadMetrics(env, keep, version, false);
  return {
    lines,
    forSession: () =>
      fanOutTelemetry(
        tracing?.forConnection({ transport: 'pipe' }),
        metrics?.forConnection({ transport: 'pipe' }),
      ),
    signIn: fanOutSignIn(tracing?.signIn, metrics?.signIn),
    flush: async () => {
      await Promise.all([
        tracing === undefined ? undefined : flushTracing(tracing),
        metrics === undefined ? undefined : flushMetrics(metrics),
      ]);
    },
  };
}

/** No telemetry: the key of a failed sign-in, whose entry is dropped without a stop. */
const NO_TELEMETRY: KeyTelemetry = {
  lines: [],
  forSession: () => undefined,
  signIn: undefined,
  flush: () => Promise.resolve(),
};

/**
 * The telemetry of a new entry of the table: started unless its sign-in failed, and the sign-in's
 * spans and counters observed, as serveStdio does (docs/observability.md#observability-sign-in).
 */
export async function entryTelemetry(
  env: Env,
  version: string,
  signIn: SharedSignIn | undefined,
): Promise<KeyTelemetry> {
  if (signIn?.ok === false) return NO_TELEMETRY;
  const telemetry = await startKeyTelemetry(env, version);
  if (signIn !== undefined && telemetry.signIn !== undefined) signIn.auth.observe?.(telemetry.signIn);
  return telemetry;
}
