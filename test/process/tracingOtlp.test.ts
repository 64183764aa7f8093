/**
 * The acceptance of traces (docs/observability.md#observability-spans) on the built bridge:
 * dist/bin/mcp-bridge.js with the standard OpenTelemetry environment exports to a local OTLP
 * collector. One tools/call that needs one input round, with the client's traceparent in
 * `_meta`, gives one trace of one server span, two upstream round spans and one input request
 * span; the fixture upstream (its `ask_traced` tool answers with the traceparent of each round)
 * saw each round span as the parent of its request. With http/protobuf the protobuf exporter
 * delivers the same trace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE, GENERIC_BRIDGE, handshake, req } from '../helpers/bridgeProcess.js';
import { attributesOf, closeCollectors, envWith, startCollector } from '../helpers/otlpCollector.js';
import { spawnPeer } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';

const TRACE = '6e0c63257de34c92bf9efcd03927272e';
const CLIENT_SPAN = 'a2fb4a1d1a96d312';
const SERVER = 2;
const CLIENT = 3;

const peers: RawPeer[] = [];
afterEach(() => {
  for (const peer of peers.splice(0)) peer.kill();
  closeCollectors();
});

/**
 * Runs the bridge with `env` through a tools/call of `ask_traced` under the client's traceparent,
 * answers its form, ends the bridge; the traceparents the fixture saw in each round.
 */
async function callAskTraced(env: Record<string, string>): Promise<string[]> {
  const peer = spawnPeer(process.execPath, [GENERIC_BRIDGE, '--', process.execPath, FIXTURE], envWith(env));
  peers.push(peer);
  await handshake(peer);
  peer.send(
    req(2, 'tools/call', {
      name: 'ask_traced',
      arguments: {},
      _meta: { traceparent: `00-${TRACE}-${CLIENT_SPAN}-01` },
    }),
  );
  const ask = await peer.nextFrame((frame) => frame['method'] === 'elicitation/create');
  peer.send({ jsonrpc: '2.0', id: ask['id'], result: { action: 'accept', content: { name: 'Ada' } } });
  const reply = await peer.nextFrame((frame) => frame['id'] === 2);
  const content = (reply['result'] as { content: { text: string }[] }).content;
  peer.closeStdin();
  expect((await peer.exit).code).toBe(0);
  return (JSON.parse(content[0]!.text) as { traceparents: string[] }).traceparents;
}

describe('traces of the built bridge to a local OTLP collector', () => {
  it('http/json: one trace of a server span, two rounds and one input request; the upstream saw each round as parent', async () => {
    const collector = await startCollector();
    const seen = await callAskTraced({
      OTEL_TRACES_EXPORTER: 'otlp',
      // The endpoint alone would send metrics too (docs/observability.md#observability-metrics): traces only here.
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    });
    // The spans left are exported when the bridge ends (docs/observability.md#observability-switch).
    await waitFor(() => collector.spans.filter((span) => span.traceId === TRACE).length >= 4);
    const spans = collector.spans.filter((span) => span.traceId === TRACE);
    expect(spans).toHaveLength(4);

    const server = spans.filter((span) => span.kind === SERVER);
    expect(server).toHaveLength(1);
    expect(server[0]!.name).toBe('tools/call ask_traced');
    expect(server[0]!.parentSpanId).toBe(CLIENT_SPAN);
    expect(attributesOf(server[0]!)).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '2',
      'network.transport': 'pipe',
      'gen_ai.tool.name': 'ask_traced',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
    });
    const serverId = server[0]!.spanId;

    const rounds = spans
      .filter((span) => span.kind === CLIENT && span.name === 'tools/call ask_traced')
      .sort(
        (a, b) => Number(attributesOf(a)['mcp.bridge.round']) - Number(attributesOf(b)['mcp.bridge.round']),
      );
    expect(rounds.map((span) => [span.parentSpanId, attributesOf(span)])).toEqual([
      [
        serverId,
        {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'ask_traced',
          'mcp.bridge.round': 1,
          'mcp.bridge.round.result': 'input_required',
          'mcp.bridge.round.input_kinds': ['elicitation'],
        },
      ],
      [
        serverId,
        { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'ask_traced', 'mcp.bridge.round': 2 },
      ],
    ]);

    const inputs = spans.filter((span) => span.name === 'elicitation/create');
    expect(inputs.map((span) => [span.kind, span.parentSpanId, attributesOf(span)])).toEqual([
      [CLIENT, serverId, { 'mcp.method.name': 'elicitation/create', 'mcp.bridge.input.kind': 'elicitation' }],
    ]);

    // The upstream saw each round's span as the parent of its request (traceparent in _meta).
    expect(seen).toEqual(rounds.map((span) => `00-${TRACE}-${span.spanId}-01`));
    expect(collector.resources).toContainEqual(
      expect.objectContaining({
        attributes: expect.arrayContaining([{ key: 'service.name', value: { stringValue: 'mcp-bridge' } }]),
      }),
    );
    expect(collector.posts.every((post) => post.path === '/v1/traces')).toBe(true);
  });

  it('http/protobuf: the protobuf exporter delivers the trace to /v1/traces', async () => {
    const collector = await startCollector();
    await callAskTraced({
      OTEL_TRACES_EXPORTER: 'otlp',
      // The endpoint alone would send metrics too (docs/observability.md#observability-metrics): traces only here.
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    });
    const traceBytes = Buffer.from(TRACE, 'hex');
    await waitFor(() => collector.posts.some((post) => post.body.includes(traceBytes)));
    const post = collector.posts.find((one) => one.body.includes(traceBytes))!;
    expect(post.path).toBe('/v1/traces');
    expect(post.contentType).toBe('application/x-protobuf');
    // Protobuf strings are their UTF-8 bytes: the span names and attribute names are there as they are.
    for (const text of [
      'tools/call ask_traced',
      'elicitation/create',
      'mcp.bridge.round',
      'gen_ai.tool.name',
    ])
      expect(post.body.includes(Buffer.from(text, 'utf8'))).toBe(true);
    // Nothing came as JSON.
    expect(collector.spans).toEqual([]);
  });
});
