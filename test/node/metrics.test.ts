/**
 * The switch of metrics (docs/observability.md#observability-metrics), traces and metrics on one
 * seam (src/node/telemetryFanout.ts), and the runtime's Prometheus text with the sign-in and
 * limit counters (src/telemetry/startMetrics.ts).
 */
import { describe, expect, it } from 'vitest';
import { loadMetrics, metricsSetting } from '../../src/node/metrics.js';
import { fanOutSignIn, fanOutTelemetry } from '../../src/node/telemetryFanout.js';
import type { SignInTelemetry, Telemetry } from '../../src/ports/telemetry.js';

const quiet = { log: () => undefined, enabled: () => false };

describe('metricsSetting', () => {
  it('is off without OTEL variables, and on with otlp or an endpoint', () => {
    expect(metricsSetting({})).toEqual({ on: false });
    expect(metricsSetting({ OTEL_METRICS_EXPORTER: 'otlp' })).toEqual({
      on: true,
      protocol: 'http/protobuf',
      intervalMs: 60_000,
    });
    expect(
      metricsSetting({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '5000',
      }),
    ).toEqual({ on: true, protocol: 'http/json', intervalMs: 5000 });
  });

  it('is off with none, OTEL_SDK_DISABLED or an endpoint under OTEL_METRICS_EXPORTER=none', () => {
    expect(metricsSetting({ OTEL_METRICS_EXPORTER: 'none' })).toEqual({ on: false });
    expect(metricsSetting({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toEqual({
      on: false,
    });
    expect(
      metricsSetting({ OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }),
    ).toEqual({ on: false });
  });

  it('warns of an exporter or a protocol it does not support, and takes the default interval for a bad one', () => {
    expect(metricsSetting({ OTEL_METRICS_EXPORTER: 'prometheus' })).toEqual({
      on: false,
      warning:
        'metrics export is off: OTEL_METRICS_EXPORTER=prometheus is not supported (only otlp; serve --metrics serves the Prometheus text format)',
    });
    expect(metricsSetting({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual({
      on: false,
      warning: 'metrics export is off: the OTLP protocol grpc is not supported (http/protobuf or http/json)',
    });
    expect(metricsSetting({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: '10' })).toEqual({
      on: true,
      protocol: 'http/protobuf',
      intervalMs: 60_000,
    });
  });
});

describe('loadMetrics', () => {
  it('is undefined when both switches are off', async () => {
    expect(await loadMetrics({}, quiet, '1.0.0', false)).toBeUndefined();
  });

  it('scrapes the Prometheus text of sign-ins, refreshes and refusals with --metrics alone', async () => {
    const metrics = await loadMetrics({}, quiet, '1.0.0', true);
    expect(metrics?.scrape).toBeDefined();
    metrics!.signIn.signInStarted({ grant: 'authorization_code' }).end('ok');
    metrics!.signIn.refreshStarted({ grant: 'refresh_token' }).end('refused');
    metrics!.signIn.refreshStarted({ grant: 'refresh_token' }).end('ok');
    metrics!.refused('max_sessions');
    metrics!.refused('max_sessions');
    const lines = (await metrics!.scrape!()).split('\n');
    const scope = 'otel_scope_name="mcp-bridge-sdk",otel_scope_version="1.0.0"';
    expect(lines).toContain(
      `mcp_bridge_sign_ins_total{mcp_bridge_auth_grant="authorization_code",mcp_bridge_auth_outcome="ok",${scope}} 1`,
    );
    expect(lines).toContain(
      `mcp_bridge_refreshes_total{mcp_bridge_auth_grant="refresh_token",mcp_bridge_auth_outcome="refused",${scope}} 1`,
    );
    expect(lines).toContain(
      `mcp_bridge_refreshes_total{mcp_bridge_auth_grant="refresh_token",mcp_bridge_auth_outcome="ok",${scope}} 1`,
    );
    expect(lines).toContain(`mcp_bridge_limit_refusals_total{mcp_bridge_limit="max_sessions",${scope}} 2`);
    await metrics!.shutdown();
  });
});

describe('fanOutTelemetry', () => {
  it('hands every call to each telemetry and sends the first context upstream', () => {
    const calls: string[] = [];
    const recording = (name: string, traceparent?: string): Telemetry => ({
      requestStarted: (info) => {
        calls.push(`${name} start ${info.method}`);
        return {
          end: (errorType) => calls.push(`${name} end ${errorType ?? 'ok'}`),
          roundStarted: (round) => {
            calls.push(`${name} round ${round}`);
            return {
              context: traceparent === undefined ? undefined : { traceparent },
              end: (outcome) => calls.push(`${name} round end ${outcome.errorType ?? 'ok'}`),
            };
          },
          inputRequested: (kind) => {
            calls.push(`${name} input ${kind}`);
            return { end: (errorType) => calls.push(`${name} input end ${errorType ?? 'ok'}`) };
          },
        };
      },
      limitRefused: (limit) => calls.push(`${name} refused ${limit}`),
    });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const both = fanOutTelemetry(undefined, recording('traces', traceparent), recording('metrics'))!;
    const request = both.requestStarted({ method: 'tools/call', requestId: 1 });
    const round = request.roundStarted(1);
    expect(round.context).toEqual({ traceparent });
    round.end({});
    request.inputRequested('roots').end('-32603');
    request.end();
    both.limitRefused?.('max_in_flight');
    expect(calls).toEqual([
      'traces start tools/call',
      'metrics start tools/call',
      'traces round 1',
      'metrics round 1',
      'traces round end ok',
      'metrics round end ok',
      'traces input roots',
      'metrics input roots',
      'traces input end -32603',
      'metrics input end -32603',
      'traces end ok',
      'metrics end ok',
      'traces refused max_in_flight',
      'metrics refused max_in_flight',
    ]);
    expect(fanOutTelemetry(undefined, undefined)).toBeUndefined();
  });
});

describe('fanOutSignIn', () => {
  it('hands every sign-in step to the spans and the counters', () => {
    const calls: string[] = [];
    const recording = (name: string): SignInTelemetry => ({
      signInStarted: (info) => ({ end: (outcome) => calls.push(`${name} sign-in ${info.grant} ${outcome}`) }),
      refreshStarted: (info) => ({
        end: (outcome, errorType) =>
          calls.push(`${name} refresh ${info.grant} ${outcome} ${errorType ?? '-'}`),
      }),
      lockWaitStarted: () => ({ end: () => calls.push(`${name} lock`) }),
    });
    const both = fanOutSignIn(recording('traces'), undefined, recording('metrics'))!;
    both.signInStarted({ grant: 'client_credentials' }).end('ok');
    both.refreshStarted({ grant: 'refresh_token' }).end('failed', 'sign_in_error');
    both.lockWaitStarted(undefined).end();
    expect(calls).toEqual([
      'traces sign-in client_credentials ok',
      'metrics sign-in client_credentials ok',
      'traces refresh refresh_token failed sign_in_error',
      'metrics refresh refresh_token failed sign_in_error',
      'traces lock',
      'metrics lock',
    ]);
    expect(fanOutSignIn(undefined)).toBeUndefined();
  });
});
