/**
 * The one rule of the OpenTelemetry switch for traces and metrics (docs/observability.md#observability-switch):
 * a signal is exported over OTLP when OTEL_<SIGNAL>_EXPORTER lists `otlp`, or when it is unset and
 * OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set; OTEL_SDK_DISABLED=true
 * and the exporter `none` turn it off. The protocol is OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL or
 * OTEL_EXPORTER_OTLP_PROTOCOL: `http/protobuf` (the default) or `http/json`. Imports nothing of
 * OpenTelemetry.
 */
import type { OtlpProtocol } from '../telemetry/start.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Off (with a warning when the environment asked for what the bridge cannot do), or on. */
export type OtlpSwitch =
  { readonly on: false; readonly warning?: string } | { readonly on: true; readonly protocol: OtlpProtocol };

/** How a signal's lines name it: `tracing is off`, and what it supports besides `otlp`. */
export interface SignalWords {
  readonly signal: 'TRACES' | 'METRICS';
  readonly off: string;
  readonly only: string;
}

/** A variable's value, trimmed; undefined when unset or empty. */
export const envValue = (env: Env, name: string): string | undefined => {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
};

export function otlpSwitch(env: Env, words: SignalWords): OtlpSwitch {
  const { signal, off, only } = words;
  if (envValue(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { on: false };
  const exporters = envValue(env, `OTEL_${signal}_EXPORTER`)
    ?.split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters === undefined) {
    const endpoint =
      envValue(env, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`) ?? envValue(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    if (endpoint === undefined) return { on: false };
  } else if (!exporters.includes('otlp')) {
    const others = exporters.filter((name) => name !== 'none');
    return others.length === 0
      ? { on: false }
      : {
          on: false,
          warning: `${off}: OTEL_${signal}_EXPORTER=${others.join(',').slice(0, 40)} is not supported ${only}`,
        };
  }
  const protocol =
    envValue(env, `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) ??
    envValue(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  if (protocol === 'http/protobuf' || protocol === 'http/json') return { on: true, protocol };
  return {
    on: false,
    warning: `${off}: the OTLP protocol ${protocol.slice(0, 40)} is not supported (http/protobuf or http/json)`,
  };
}
