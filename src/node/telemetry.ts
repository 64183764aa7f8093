/**
 * The switch of telemetry (docs/observability.md#observability-switch): the standard
 * OpenTelemetry environment decides, and only when it turns tracing on is src/telemetry/start.ts
 * (and with it every OpenTelemetry module) loaded, with `import()`. This file imports nothing of
 * OpenTelemetry, so start-up and the request path cost nothing when tracing is off.
 */
import type { Logger } from '../ports/logger.js';
import type { OtlpProtocol, TracingRuntime } from '../telemetry/start.js';

export type { TracingRuntime } from '../telemetry/start.js';

/** What the environment says: off (with a warning when it asked for what the bridge cannot do), or on. */
export type TracingSetting =
  { readonly on: false; readonly warning?: string } | { readonly on: true; readonly protocol: OtlpProtocol };

type Env = Readonly<Record<string, string | undefined>>;

const value = (env: Env, name: string): string | undefined => {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
};

/**
 * Tracing is on when OTEL_TRACES_EXPORTER lists `otlp`, or when it is unset and
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; OTEL_SDK_DISABLED=true
 * and OTEL_TRACES_EXPORTER=none turn it off. The protocol is OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or
 * OTEL_EXPORTER_OTLP_PROTOCOL: `http/protobuf` (the default) or `http/json`.
 */
export function tracingSetting(env: Env): TracingSetting {
  if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { on: false };
  const exporters = value(env, 'OTEL_TRACES_EXPORTER')
    ?.split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters === undefined) {
    const endpoint =
      value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    if (endpoint === undefined) return { on: false };
  } else if (!exporters.includes('otlp')) {
    const others = exporters.filter((name) => name !== 'none');
    return others.length === 0
      ? { on: false }
      : {
          on: false,
          warning: `tracing is off: OTEL_TRACES_EXPORTER=${others.join(',')} is not supported (only otlp)`,
        };
  }
  const protocol =
    value(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ??
    value(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  if (protocol === 'http/protobuf' || protocol === 'http/json') return { on: true, protocol };
  return {
    on: false,
    warning: `tracing is off: the OTLP protocol ${protocol.slice(0, 40)} is not supported (http/protobuf or http/json)`,
  };
}

/**
 * Tracing as the environment asks, or undefined when it is off or could not start (a warning
 * line says why; the bridge runs on without it).
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
    return await startTracing({ protocol: setting.protocol, serviceName: 'mcp-bridge', version });
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
