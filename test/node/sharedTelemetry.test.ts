/**
 * The telemetry of a key of the shared process (docs/shared.md#shared-telemetry): started from the
 * entry's environment, not the shared process's own, with the one switch of
 * src/node/otlpSwitch.ts, and its switch lines kept for each session's stderr.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startKeyTelemetry } from '../../src/node/sharedTelemetry.js';
import { closeCollectors, startCollector } from '../helpers/otlpCollector.js';
import { waitFor } from '../helpers/waitFor.js';

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
  closeCollectors();
});

describe('startKeyTelemetry', () => {
  it("exports a session's spans where the entry's environment says, under its service name, not the process's", async () => {
    const entry = await startCollector();
    const own = await startCollector();
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = own.url;
    process.env['OTEL_SERVICE_NAME'] = 'the-shared-process';
    const telemetry = await startKeyTelemetry(
      {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: entry.url,
        OTEL_SERVICE_NAME: 'entry-a',
      },
      '1.2.3',
    );
    expect(telemetry.lines).toEqual([]);
    // The process's own variables are back once the runtime was made.
    expect([process.env['OTEL_EXPORTER_OTLP_ENDPOINT'], process.env['OTEL_SERVICE_NAME']]).toEqual([
      own.url,
      'the-shared-process',
    ]);
    expect(process.env['OTEL_TRACES_EXPORTER']).toBeUndefined();
    telemetry.forSession()!.requestStarted({ method: 'tools/list', requestId: 7 }).end();
    await telemetry.flush();
    await waitFor(() => entry.spans.length === 1);
    expect(entry.spans.map((span) => span.name)).toEqual(['tools/list']);
    expect(entry.resources).toContainEqual(
      expect.objectContaining({
        attributes: expect.arrayContaining([{ key: 'service.name', value: { stringValue: 'entry-a' } }]),
      }),
    );
    expect(own.posts).toEqual([]);
  });

  it('is off without OTEL variables, and keeps the warning of a setting it cannot serve for each session', async () => {
    const off = await startKeyTelemetry({}, '1.2.3');
    expect([off.lines, off.forSession(), off.signIn]).toEqual([[], undefined, undefined]);
    const zipkin = await startKeyTelemetry(
      { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_METRICS_EXPORTER: 'none' },
      '1.2.3',
    );
    expect(zipkin.lines).toEqual([
      {
        scope: 'bridge',
        level: 'warn',
        text: 'tracing is off: OTEL_TRACES_EXPORTER=zipkin is not supported (only otlp)',
      },
    ]);
    expect(zipkin.forSession()).toBeUndefined();
  });
});
