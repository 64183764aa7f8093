/**
 * The OpenTelemetry SDK reads its settings (the OTLP endpoint, headers, timeout, certificates, the
 * batch and sampler settings, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`) from `process.env`
 * while its exporters, processors and resource are made. The shared process serves entries with
 * different environments (docs/shared.md#shared-telemetry), so it makes each runtime under the
 * `OTEL_*` variables of its entry: OpenTelemetry's own rules, no second copy of them here.
 */

/** An environment as the bridge passes it (the shim's, or the process's own). */
export type OtelEnv = Readonly<Record<string, string | undefined>>;

const isOtel = (name: string): boolean => name.startsWith('OTEL_');

/**
 * Runs `build` (synchronous: nothing else runs meanwhile) with exactly the `OTEL_*` variables of
 * `env` in `process.env`, then puts the process's own back. `process.env` itself builds as it is.
 */
export function underEnvironment<T>(env: OtelEnv, build: () => T): T {
  if (env === process.env) return build();
  const saved = Object.entries(process.env).filter(([name]) => isOtel(name));
  for (const [name] of saved) delete process.env[name];
  for (const [name, value] of Object.entries(env))
    if (isOtel(name) && value !== undefined) process.env[name] = value;
  try {
    return build();
  } finally {
    for (const name of Object.keys(process.env)) if (isOtel(name)) delete process.env[name];
    for (const [name, value] of saved) process.env[name] = value;
  }
}
