/**
 * Starts OpenTelemetry metrics for the bridge (docs/observability.md#observability-metrics): a
 * meter provider with a periodic OTLP export (OTEL_METRICS_EXPORTER=otlp), a pull reader for
 * `serve --metrics` (Prometheus text format), or both. Like src/telemetry/start.ts, every
 * OpenTelemetry module is loaded here with `import()`, and this file itself is loaded with
 * `import()` by src/node/metrics.ts only when metrics are on.
 *
 * The provider is not registered as the global one: an application that embeds the bridge keeps
 * its own. The OTLP exporters read their endpoint, headers and timeout from the standard
 * environment themselves (OTEL_EXPORTER_OTLP_*), as they are made: `options.env`'s.
 */
import type { SignInTelemetry, Telemetry } from '../ports/telemetry.js';
import type { ConnectionInfo } from './otelTelemetry.js';
import type { OtlpProtocol } from './start.js';
import { bridgeInstruments, metricsTelemetry, signInMetrics } from './otelMetrics.js';
import { underEnvironment } from './otelEnvironment.js';
import type { OtelEnv } from './otelEnvironment.js';

export interface MetricsOptions {
  /** The OTLP export, when OTEL_METRICS_EXPORTER asks for it. */
  readonly otlp?: { readonly protocol: OtlpProtocol; readonly intervalMs: number };
  /** A pull reader for `GET /metrics` (`serve --metrics`). */
  readonly prometheus: boolean;
  /** `service.name` when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one. */
  readonly serviceName: string;
  readonly version: string;
  /** The environment whose `OTEL_*` variables configure the exporter and the resource (start.ts). */
  readonly env?: OtelEnv;
}

/** Metrics while the process runs. */
export interface MetricsRuntime {
  readonly forConnection: (connection: ConnectionInfo) => Telemetry;
  /** A request refused by the limit `limit` (docs/observability.md#observability-metrics). */
  readonly refused: (limit: string) => void;
  /** The counters of sign-ins and refreshes, for UpstreamAuth.observe (docs/sign-in.md). */
  readonly signIn: SignInTelemetry;
  /** The metrics now in the Prometheus text format; undefined without `prometheus`. */
  readonly scrape?: () => Promise<string>;
  /** Exports what is left and stops; never rejects. */
  readonly shutdown: () => Promise<void>;
}

export async function startMetrics(options: MetricsOptions): Promise<MetricsRuntime> {
  const [resources, sdk, prometheus, exporters] = await Promise.all([
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-metrics'),
    options.prometheus ? import('@opentelemetry/exporter-prometheus') : undefined,
    options.otlp === undefined
      ? undefined
      : options.otlp.protocol === 'http/json'
        ? import('@opentelemetry/exporter-metrics-otlp-http')
        : import('@opentelemetry/exporter-metrics-otlp-proto'),
  ]);
  // A reader that only collects when asked: the scrape of GET /metrics.
  class PullReader extends sdk.MetricReader {
    protected override onForceFlush(): Promise<void> {
      return Promise.resolve();
    }
    protected override onShutdown(): Promise<void> {
      return Promise.resolve();
    }
  }
  const pull = prometheus === undefined ? undefined : new PullReader();
  const provider = underEnvironment(options.env ?? process.env, () => {
    // The environment's service name and attributes win over the bridge's default.
    const resource = resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ 'service.name': options.serviceName }))
      .merge(resources.detectResources({ detectors: [resources.envDetector] }));
    const readers: InstanceType<typeof sdk.MetricReader>[] = [];
    if (pull !== undefined) readers.push(pull);
    if (exporters !== undefined && options.otlp !== undefined) {
      readers.push(
        new sdk.PeriodicExportingMetricReader({
          exporter: new exporters.OTLPMetricExporter(),
          exportIntervalMillis: options.otlp.intervalMs,
        }),
      );
    }
    return new sdk.MeterProvider({ resource, readers });
  });
  const instruments = bridgeInstruments(provider.getMeter('mcp-bridge-sdk', options.version));
  const serializer = prometheus === undefined ? undefined : new prometheus.PrometheusSerializer();
  return {
    forConnection: (connection) => metricsTelemetry(instruments, connection),
    refused: (limit) => instruments.refusals.add(1, { 'mcp.bridge.limit': limit }),
    signIn: signInMetrics(instruments),
    ...(pull === undefined || serializer === undefined
      ? {}
      : {
          scrape: async () => serializer.serialize((await pull.collect()).resourceMetrics),
        }),
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
