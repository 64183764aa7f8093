/**
 * The switch of telemetry (docs/observability.md#observability-switch): the standard
 * OpenTelemetry environment decides, and only when it turns tracing on is src/telemetry/start.ts
 * (and with it every OpenTelemetry module) loaded, with `import()`. This file imports nothing of
 * OpenTelemetry, so start-up and the request path cost nothing when tracing is off.
 */
import type { Logger } from '../ports/logger.js';
import type { OtlpProtocol, TracingRuntime } from '../telemetry/start.js';
import { otlpSwitch, type Env } from './otlpSwitch.js';

export type { TracingRuntime } from '../telemetry/start.js';

/** What the environment says: off (with a warning when it asked for what the bridge cannot do), or on. */
export type TracingSetting =
  { readonly on: false; readonly warning?: string } | { readonly on: true; readonly protocol: OtlpProtocol };

/** Tracing's OTLP switch: the one rule of otlpSwitch.ts. */
export const tracingSetting = (env: Env): TracingSetting =>
  otlpSwitch(env, { signal: 'TRACES', off: 'tracing is off', only: '(only otlp)' });

/**
 * Tracing as `env` asks (its `OTEL_*` variables also configure the exporter), or undefined when
 * it is off or could not start (a warning line says why; the bridge runs on without it).
 */
export async function loadTracing(
  env: Env,
  logger: Logger,
  version: string,
): Promise<TracingRuntime | undefined> {
  const setting = tracingSetting(env);
  if (!setting.on) {
    if (setting.warning !== undefined) logger.log('bridge', 'warn', setting.warning);
    return undefined;
  }
  try {
    const { startTracing } = await import('../telemetry/start.js');
    return await startTracing({ protocol: setting.protocol, serviceName: 'mcp-bridge', version, env });
  } catch (error: unknown) {
    const name = error instanceof Error ? error.name : 'error';
    logger.log('bridge', 'warn', `tracing is off: OpenTelemetry did not start (${name})`);
    return undefined;
  }
}

/** docs/observability.md#observability-switch: the spans left are exported at the end, for at most this long. */
export const FLUSH_LIMIT_MS = 2_000;

/** Exports the spans left, waiting at most FLUSH_LIMIT_MS: a collector that does not answer never holds the exit. */
export async function flushTracing(tracing: Pick<TracingRuntime, 'shutdown'>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, FLUSH_LIMIT_MS);
    timer.unref();
  });
  await Promise.race([tracing.shutdown(), limit]);
  clearTimeout(timer);
}
