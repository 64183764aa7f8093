/**
 * Metrics of one tools/call with one input round (docs/observability.md#observability-metrics):
 * the server duration histogram has one point, the rounds counter 2, the input requests 1 with
 * its kind, the client duration histogram one point per round; no attribute holds an argument
 * or a form answer. Read with an in-memory exporter.
 */
import { NEVER } from 'rxjs';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import type { HistogramMetricData, MetricData, SumMetricData } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import type { Telemetry } from '../../src/ports/telemetry.js';
import { bridgeInstruments, metricsTelemetry } from '../../src/telemetry/otelMetrics.js';
import { createFakeUpstream } from '../../src/testing/fakeUpstream.js';
import { INITIALIZE, askTool, telemetryBridge } from './telemetryBridge.js';

const ANSWER = 'form-answer-5d2e';
const ARGUMENT = 'argument-value-1f8a';

/** A bridge with `telemetry` in front of a fake upstream whose tool `ask` asks one question and `hang` never answers. */
function bridgeWith(
  telemetry: Telemetry,
  maxInFlight = DEFAULT_LIMITS.maxInFlight,
): ReturnType<typeof telemetryBridge> {
  const fake = createFakeUpstream({ tools: { hang: () => NEVER, ask: askTool } });
  return telemetryBridge(fake.connection, telemetry, { ...DEFAULT_LIMITS, maxInFlight });
}

/** The metrics of the last export of `exporter` after a flush of `reader`, by name. */
async function collected(
  reader: PeriodicExportingMetricReader,
  exporter: InMemoryMetricExporter,
): Promise<Map<string, MetricData>> {
  await reader.forceFlush();
  return new Map<string, MetricData>(
    exporter
      .getMetrics()
      .at(-1)!
      .scopeMetrics.flatMap((scope) => scope.metrics)
      .map((metric) => [metric.descriptor.name, metric]),
  );
}

describe('metrics of one tools/call with an input round', () => {
  it('counts a request refused by the in-flight limit as max_in_flight', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const { send, out } = bridgeWith(
      metricsTelemetry(bridgeInstruments(provider.getMeter('test')), { transport: 'pipe' }),
      1,
    );
    send(INITIALIZE);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hang', arguments: {} } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'hang', arguments: {} } });
    expect(out.at(-1)).toMatchObject({ id: 3, error: { code: -32603 } });
    const refusals = (await collected(reader, exporter)).get('mcp.bridge.limit.refusals') as SumMetricData;
    expect(refusals.dataPoints.map((point) => [point.attributes, point.value])).toEqual([
      [{ 'mcp.bridge.limit': 'max_in_flight' }, 1],
    ]);
    await provider.shutdown();
  });

  it('gives one server duration point, 2 rounds, 1 input request of kind elicitation', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const instruments = bridgeInstruments(provider.getMeter('test'));
    const { send, out } = bridgeWith(metricsTelemetry(instruments, { transport: 'pipe' }));
    send(INITIALIZE);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'ask', arguments: { a: ARGUMENT } },
    });
    const ask = out.at(-1) as { id: string; method: string };
    expect(ask.method).toBe('elicitation/create');
    send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { n: ANSWER } } });
    expect(out.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'ok' }] } });

    const metrics = await collected(reader, exporter);
    const server = metrics.get('mcp.server.operation.duration') as HistogramMetricData;
    expect(server.descriptor.unit).toBe('s');
    const calls = server.dataPoints.filter((point) => point.attributes['mcp.method.name'] === 'tools/call');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.value.count).toBe(1);
    expect(calls[0]!.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'ask',
      'network.transport': 'pipe',
      'mcp.protocol.version': '2025-11-25',
    });
    const rounds = metrics.get('mcp.bridge.rounds') as SumMetricData;
    expect(rounds.dataPoints.map((point) => [point.attributes['gen_ai.tool.name'], point.value])).toEqual([
      ['ask', 2],
    ]);
    const inputs = metrics.get('mcp.bridge.input_requests') as SumMetricData;
    expect(inputs.dataPoints.map((point) => [point.attributes, point.value])).toEqual([
      [{ 'mcp.method.name': 'elicitation/create', 'mcp.bridge.input.kind': 'elicitation' }, 1],
    ]);
    const client = metrics.get('mcp.client.operation.duration') as HistogramMetricData;
    expect(client.dataPoints.map((point) => [point.attributes, point.value.count])).toEqual([
      [
        { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'ask', 'mcp.protocol.version': '2026-07-28' },
        2,
      ],
    ]);
    const exported = JSON.stringify(exporter.getMetrics());
    expect(exported).not.toContain(ANSWER);
    expect(exported).not.toContain(ARGUMENT);
    await provider.shutdown();
  });
});
