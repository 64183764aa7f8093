/**
 * `serve` traces like the stdio bridge (docs/observability.md#observability-spans): with the
 * OpenTelemetry environment on, a client request over HTTP gives a server span with
 * `network.transport` tcp and a round span under it, in the client's trace, exported with OTLP
 * http/json to a local collector when the server closes.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defer, of } from 'rxjs';
import { createMemoryUpstream, EMBEDDED_LIMITS } from '../../src/embed/legacyPath.js';
import { ajvInputChecks } from '../../src/node/inputChecks.js';
import { serveHttp, serveHttpOn } from '../../src/node/serveHttp.js';
import type { HttpServer } from '../../src/node/serveHttp.js';
import { silentLogger } from '../../src/ports/logger.js';
import { genericProfile } from '../../src/profiles/generic.js';
import { DEFAULT_MAX_DEPTH } from '../../src/protocol/parseLine.js';
import { createFixtureServer } from '../fixtures/fixtureFactory.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import { attributesOf, closeCollectors, startCollector } from '../helpers/otlpCollector.js';
import type { OtlpSpan } from '../helpers/otlpCollector.js';
import { waitFor } from '../helpers/waitFor.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const attribute = (span: OtlpSpan, key: string): unknown => attributesOf(span)[key];

afterEach(() => {
  vi.unstubAllEnvs();
  closeCollectors();
});

describe('serve with tracing on', () => {
  it('exports a server span (network.transport tcp) and its round span in the client trace', async () => {
    const collector = await startCollector();
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', collector.url);
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
    vi.stubEnv('OTEL_TRACES_EXPORTER', 'otlp');
    const factory = createFixtureServer({ hooks: { log: () => undefined } });
    const server = await serveHttpOn(
      genericProfile,
      {
        connect: () =>
          defer(() =>
            of(
              createMemoryUpstream({
                factory,
                limits: EMBEDDED_LIMITS,
                maxLineBytes: 1 << 20,
                maxDepth: DEFAULT_MAX_DEPTH,
                name: 'fixture',
                version: '1.0.0',
                logger: silentLogger,
                checks: ajvInputChecks,
              }),
            ),
          ),
        settle: () => Promise.resolve(),
        fallback: {},
      },
      { logger: silentLogger, limits: EMBEDDED_LIMITS, checks: ajvInputChecks },
    );
    const init = await fetch(server.url, {
      method: 'POST',
      headers: POST_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    await init.text();
    const sessionId = init.headers.get('mcp-session-id') ?? '';
    const headers = {
      ...POST_HEADERS,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    };
    await (
      await fetch(server.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    const call = await fetch(server.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'progress',
          arguments: { count: 1 },
          _meta: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
        },
      }),
    });
    expect(await call.text()).toContain('sent 1 progress notifications');
    await server.close();
    await waitFor(() =>
      collector.spans.some((span) => span.name === 'tools/call progress' && span.kind === 2),
    );
    const serverSpan = collector.spans.find(
      (span) => span.name === 'tools/call progress' && span.kind === 2,
    )!;
    expect(serverSpan.traceId).toBe(TRACE);
    expect(attribute(serverSpan, 'network.transport')).toBe('tcp');
    expect(attribute(serverSpan, 'mcp.method.name')).toBe('tools/call');
    expect(attribute(serverSpan, 'gen_ai.tool.name')).toBe('progress');
    expect(attribute(serverSpan, 'jsonrpc.request.id')).toBe('7');
    expect(attribute(serverSpan, 'mcp.protocol.version')).toBe('2025-11-25');
    // docs/observability.md#observability-session: 16 hex digits of the SHA-256 of the id, never the id.
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(attribute(serverSpan, 'mcp.session.id')).toBe(
      createHash('sha256').update(sessionId).digest('hex').slice(0, 16),
    );
    expect(JSON.stringify(collector.spans)).not.toContain(sessionId);
    const rounds = collector.spans.filter((span) => span.name === 'tools/call progress' && span.kind === 3);
    expect(rounds.map((span) => [span.traceId, attribute(span, 'mcp.bridge.round')])).toEqual([[TRACE, 1]]);
  });
});

/** Initializes a session of `server` and calls `name` with `args` under the client's traceparent; its reply text. */
async function callTraced(server: HttpServer, name: string, args: object): Promise<string> {
  const init = await fetch(server.url, {
    method: 'POST',
    headers: POST_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  await init.text();
  const headers = {
    ...POST_HEADERS,
    'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': '2025-11-25',
  };
  await (
    await fetch(server.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text();
  const call = await fetch(server.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name, arguments: args, _meta: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` } },
    }),
  });
  return call.text();
}

describe('serve with tracing on to a URL upstream', () => {
  it('sends the round span as traceparent in _meta and as an HTTP header', async () => {
    const collector = await startCollector();
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', collector.url);
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
    vi.stubEnv('OTEL_TRACES_EXPORTER', 'otlp');
    const fixture = await startHttpFixture({ log: () => undefined });
    const server = await serveHttp(
      genericProfile,
      { kind: 'url', url: fixture.url },
      { logger: silentLogger },
    );
    expect(await callTraced(server, 'echo', { text: 'hi' })).toContain('hi');
    await server.close();
    await fixture.close();
    await waitFor(() => collector.spans.some((span) => span.name === 'tools/call echo' && span.kind === 3));
    const round = collector.spans.find((span) => span.name === 'tools/call echo' && span.kind === 3)!;
    const call = fixture.received.find((request) => request.method === 'tools/call')!;
    const expected = `00-${TRACE}-${round.spanId}-01`;
    expect(call.headers['traceparent']).toBe(expected);
    expect((call.body as { params: { _meta: Record<string, unknown> } }).params._meta['traceparent']).toBe(
      expected,
    );
  });
});
