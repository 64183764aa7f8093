/**
 * The switch of metrics (docs/observability.md#observability-metrics): the standard OpenTelemetry
 * environment (OTEL_METRICS_EXPORTER) turns the OTLP export on, `serve --metrics` the Prometheus
 * text format of `GET /metrics`; only when one of them is on is src/telemetry/startMetrics.ts (and
 * with it every OpenTelemetry module) loaded, with `import()`. This file imports nothing of
 * OpenTelemetry, so start-up and the request path cost nothing when metrics are off.
 */
import type { Logger } from '../ports/logger.js';
import type { OtlpProtocol } from '../telemetry/start.js';
import type { MetricsRuntime } from '../telemetry/startMetrics.js';
import { flushTracing } from './telemetry.js';

export type { MetricsRuntime } from '../telemetry/startMetrics.js';

/** What the environment says of the OTLP export of metrics. */
export type MetricsSetting =
  | { readonly on: false; readonly warning?: string }
  | { readonly on: true; readonly protocol: OtlpProtocol; readonly intervalMs: number };

type Env = Readonly<Record<string, string | undefined>>;

/** OTEL_METRIC_EXPORT_INTERVAL's default (the OpenTelemetry specification): 60 s. */
export const DEFAULT_EXPORT_INTERVAL_MS = 60_000;

const value = (env: Env, name: string): string | undefined => {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
};

/** OTEL_METRIC_EXPORT_INTERVAL in ms: a whole number from 1 s to 1 day, else the default. */
function intervalOf(env: Env): number {
  const text = value(env, 'OTEL_METRIC_EXPORT_INTERVAL');
  const ms = text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  return ms >= 1_000 && ms <= 86_400_000 ? ms : DEFAULT_EXPORT_INTERVAL_MS;
}

/**
 * The OTLP export of metrics is on when OTEL_METRICS_EXPORTER lists `otlp`, or when it is unset
 * and OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is set (as for traces);
 * OTEL_SDK_DISABLED=true and OTEL_METRICS_EXPORTER=none turn it off. The protocol is
 * OTEL_EXPORTER_OTLP_METRICS_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL: `http/protobuf` (the
 * default) or `http/json`; the interval OTEL_METRIC_EXPORT_INTERVAL (ms, default 60 s).
 */
export function metricsSetting(env: Env): MetricsSetting {
  if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { on: false };
  const exporters = value(env, 'OTEL_METRICS_EXPORTER')
    ?.split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters === undefined) {
    const endpoint =
      value(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT') ?? value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    if (endpoint === undefined) return { on: false };
  } else if (!exporters.includes('otlp')) {
    const others = exporters.filter((name) => name !== 'none');
    return others.length === 0
      ? { on: false }
      : {
          on: false,
          warning:
            `metrics export is off: OTEL_METRICS_EXPORTER=${others.join(',').slice(0, 40)} is not supported ` +
            '(only otlp; serve --metrics serves the Prometheus text format)',
        };
  }
  const protocol =
    value(env, 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL') ??
    value(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  if (protocol === 'http/protobuf' || protocol === 'http/json')
    return { on: true, protocol, intervalMs: intervalOf(env) };
  return {
    on: false,
    warning: `metrics export is off: the OTLP protocol ${protocol.slice(0, 40)} is not supported (http/protobuf or http/json)`,
  };
}

/**
 * Metrics as the environment and `prometheus` (`serve --metrics`) ask, or undefined when both are
 * off or OpenTelemetry could not start (a warning line says why; the bridge runs on without it).
 */
export async function loadMetrics(
  env: Env,
  logger: Logger,
  version: string,
  prometheus: boolean,
): Promise<MetricsRuntime | undefined> {
  const setting = metricsSetting(env);
  if (!setting.on && setting.warning !== undefined) logger.log('bridge', 'warn', setting.warning);
  if (!setting.on && !prometheus) return undefined;
  try {
    const { startMetrics } = await import('../telemetry/startMetrics.js');
    return await startMetrics({
      ...(setting.on ? { otlp: { protocol: setting.protocol, intervalMs: setting.intervalMs } } : {}),
      prometheus,
      serviceName: 'mcp-bridge',
      version,
    });
  } catch (error: unknown) {
    const name = error instanceof Error ? error.name : 'error';
    logger.log('bridge', 'warn', `metrics are off: OpenTelemetry did not start (${name})`);
    return undefined;
  }
}

/** Exports the metrics left, waiting at most as long as for the spans (FLUSH_LIMIT_MS). */
export const flushMetrics = (metrics: MetricsRuntime): Promise<void> => flushTracing(metrics);
