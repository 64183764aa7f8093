/**
 * Starts OpenTelemetry tracing for the bridge (docs/observability.md#observability-switch): the
 * tracer provider, its batch processor and the OTLP exporter of the protocol chosen. Every
 * OpenTelemetry module is loaded here with `import()`, and this file is itself loaded with
 * `import()` by src/node/telemetry.ts only when the environment turns tracing on: with tracing
 * off no OpenTelemetry module is ever loaded (test/process/telemetryOff.test.ts).
 *
 * The provider is not registered as the global one: an application that embeds the bridge keeps
 * its own. The OTLP exporters read their endpoint, headers and timeout from the standard
 * environment themselves (OTEL_EXPORTER_OTLP_*), as they are made: `options.env`'s.
 */
import type { SignInTelemetry, Telemetry } from '../ports/telemetry.js';
import type { ConnectionInfo } from './otelTelemetry.js';
import { otelSignInTelemetry, otelTelemetry } from './otelTelemetry.js';
import { underEnvironment } from './otelEnvironment.js';
import type { OtelEnv } from './otelEnvironment.js';

export type { ConnectionInfo } from './otelTelemetry.js';

/** The OTLP protocols the bridge exports with. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingOptions {
  readonly protocol: OtlpProtocol;
  /** `service.name` when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one. */
  readonly serviceName: string;
  readonly version: string;
  /**
   * The environment whose `OTEL_*` variables configure the exporter and the resource; default
   * `process.env` (the shared process passes an entry's, src/telemetry/otelEnvironment.ts).
   */
  readonly env?: OtelEnv;
}

/** Tracing while the process runs: a Telemetry per connection, and the flush at the end. */
export interface TracingRuntime {
  readonly forConnection: (connection: ConnectionInfo) => Telemetry;
  /** The spans of the sign-in of a URL upstream (UpstreamAuth.observe). */
  readonly signIn: SignInTelemetry;
  /** Exports what is left and stops; never rejects. */
  readonly shutdown: () => Promise<void>;
}

export async function startTracing(options: TracingOptions): Promise<TracingRuntime> {
  const [api, core, resources, sdk, exporters] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    options.protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  const provider = underEnvironment(options.env ?? process.env, () => {
    // The environment's service name and attributes win over the bridge's default.
    const resource = resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ 'service.name': options.serviceName }))
      .merge(resources.detectResources({ detectors: [resources.envDetector] }));
    return new sdk.BasicTracerProvider({
      resource,
      spanProcessors: [new sdk.BatchSpanProcessor(new exporters.OTLPTraceExporter())],
    });
  });
  const parts = {
    api,
    tracer: provider.getTracer('mcp-bridge-sdk', options.version),
    propagator: new core.W3CTraceContextPropagator(),
  };
  return {
    forConnection: (connection) => otelTelemetry(parts, connection),
    signIn: otelSignInTelemetry(parts),
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
