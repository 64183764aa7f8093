/**
 * One tools/call with one input round gives one trace (docs/observability.md): a server span, two
 * upstream round spans, one input request span, under the client's traceparent; the upstream gets
 * the round span as its parent in `_meta`; nothing exported holds the form answer or arguments.
 */
import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/protocol/jsonrpc.js';
import { otelTelemetry } from '../../src/telemetry/otelTelemetry.js';
import { createFakeUpstream } from '../../src/testing/fakeUpstream.js';
import { INITIALIZE, askTool, telemetryBridge } from './telemetryBridge.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const ANSWER = 'form-answer-9c1d';
const ARGUMENT = 'argument-value-7e3b';

describe('spans of one tools/call with an input round', () => {
  it('gives one trace: server span, two rounds, one input request', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const telemetry = otelTelemetry(
      { api, tracer: provider.getTracer('test'), propagator: new W3CTraceContextPropagator() },
      { transport: 'pipe' },
    );
    const fake = createFakeUpstream({ tools: { ask: askTool } });
    const { send, out } = telemetryBridge(fake.connection, telemetry);
    send(INITIALIZE);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'ask',
        arguments: { a: ARGUMENT },
        _meta: { traceparent: `00-${TRACE}-b7ad6b7169203331-01` },
      },
    });
    const ask = out.at(-1) as { id: string; method: string };
    expect(ask.method).toBe('elicitation/create');
    send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { n: ANSWER } } });

    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === TRACE);
    expect(spans.map((span) => span.name).sort()).toEqual([
      'elicitation/create',
      'tools/call ask',
      'tools/call ask',
      'tools/call ask',
    ]);
    const server = spans.find((span) => span.kind === api.SpanKind.SERVER);
    expect(server?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'ask',
      'jsonrpc.request.id': '2',
      'network.transport': 'pipe',
      'mcp.protocol.version': '2025-11-25',
    });
    const rounds = spans.filter((span) => span.attributes['mcp.bridge.round'] !== undefined);
    expect(rounds.map((span) => span.attributes['mcp.bridge.round']).sort()).toEqual([1, 2]);
    expect(
      rounds.find((span) => span.attributes['mcp.bridge.round'] === 1)?.attributes[
        'mcp.bridge.round.input_kinds'
      ],
    ).toEqual(['elicitation']);
    // The upstream saw the round span as the parent of its request.
    const metas = fake.requests
      .filter((r) => r.method === 'tools/call')
      .map((r) => (r.params['_meta'] as JsonObject)['traceparent']);
    const roundIds = rounds.map((span) => `00-${TRACE}-${span.spanContext().spanId}-01`).sort();
    expect([...metas].sort()).toEqual(roundIds);
    const exported = JSON.stringify(spans.map((s) => ({ n: s.name, a: s.attributes, e: s.events })));
    expect(exported).not.toContain(ANSWER);
    expect(exported).not.toContain(ARGUMENT);
  });
});
