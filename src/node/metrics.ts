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
import { envValue, otlpSwitch, type Env } from './otlpSwitch.js';
import { flushTracing } from './telemetry.js';

export type { MetricsRuntime } from '../telemetry/startMetrics.js';

/** What the environment says of the OTLP export of metrics. */
export type MetricsSetting =
  | { readonly on: false; readonly warning?: string }
  | { readonly on: true; readonly protocol: OtlpProtocol; readonly intervalMs: number };

/** OTEL_METRIC_EXPORT_INTERVAL's default (the OpenTelemetry specification): 60 s. */
export const DEFAULT_EXPORT_INTERVAL_MS = 60_000;

/** OTEL_METRIC_EXPORT_INTERVAL in ms: a whole number from 1 s to 1 day, else the default. */
function intervalOf(env: Env): number {
  const text = envValue(env, 'OTEL_METRIC_EXPORT_INTERVAL');
  const ms = text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  return ms >= 1_000 && ms <= 86_400_000 ? ms : DEFAULT_EXPORT_INTERVAL_MS;
}

/** The OTLP export of metrics: the one rule of otlpSwitch.ts, and OTEL_METRIC_EXPORT_INTERVAL (ms, default 60 s). */
export function metricsSetting(env: Env): MetricsSetting {
  const setting = otlpSwitch(env, {
    signal: 'METRICS',
    off: 'metrics export is off',
    only: '(only otlp; serve --metrics serves the Prometheus text format)',
  });
  return setting.on ? { ...setting, intervalMs: intervalOf(env) } : setting;
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
      env,
    });
  } catch (error: unknown) {
    const name = error instanceof Error ? error.name : 'error';
    logger.log('bridge', 'warn', `metrics are off: OpenTelemetry did not start (${name})`);
    return undefined;
  }
}

/** Exports the metrics left, waiting at most as long as for the spans (FLUSH_LIMIT_MS). */
export const flushMetrics = (metrics: MetricsRuntime): Promise<void> => flushTracing(metrics);
