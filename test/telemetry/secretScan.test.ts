/**
 * No secrets in telemetry (docs/observability.md#observability-secrets): one test
 * exports every span to one in-memory exporter: a sign-in against oidc-provider that gives a
 * token (through UpstreamAuth, as the HTTP upstream calls it), then a bridge to an HTTP upstream
 * with a secret header and a key in its URL's query: a tool call whose arguments hold a
 * secret-looking value, a form answer of an input round. The repo's
 * secret scan (test/helpers/secretScan.ts) then reads every span name, attribute, event, link and
 * resource attribute.
 */
import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createHttpUpstream } from '../../src/edges/http/httpUpstream.js';
import { createMemoryStore } from '../../src/oauth/store/memoryStore.js';
import type { Frame } from '../../src/protocol/jsonrpc.js';
import { otelSignInTelemetry, otelTelemetry } from '../../src/telemetry/otelTelemetry.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { waitFor } from '../helpers/waitFor.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import { post, secretsOf, signInSuite } from '../oauth/signInHarness.js';
import { INITIALIZE, exportedSpans, telemetryBridge } from './telemetryBridge.js';

const suite = signInSuite();

const ARGUMENT = 'sk-live-argument-51c0e7';
const ANSWER = 'form-answer-9d2f6a';
const HEADER = 'header-value-8b41c3';
const QUERY_KEY = 'query-key-2f7e90';
const TRACE = '3f1c9a0b7d2e4c6f8a1b3c5d7e9f0a2b';

type Reply = Frame & { id?: unknown; method?: string; result?: unknown; error?: unknown };

describe('secret scan of every exported span', () => {
  it('holds no token, code, argument value, form answer, header value, URL query or session id', async () => {
    const { mcp } = await suite.servers();
    const store = createMemoryStore();
    const h = suite.make({ config: { url: mcp.url }, store });
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'mcp-bridge' }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const parts = { api, tracer: provider.getTracer('test'), propagator: new W3CTraceContextPropagator() };
    h.auth.observe?.(otelSignInTelemetry(parts));
    // The sign-in: a 401 of the protected server, the challenge under the request's trace, the token.
    const first = await post(suite.net.fetch, mcp.url, h.auth);
    expect(first.status).toBe(401);
    await h.auth.challenge({
      status: 401,
      wwwAuthenticate: first.wwwAuthenticate,
      method: 'tools/list',
      signal: new AbortController().signal,
      authorization: undefined,
      trace: { traceparent: `00-${TRACE}-b7ad6b7169203331-01` },
    });
    expect((await post(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);

    // The bridge to an HTTP upstream with a secret header and a key in the URL's query.
    const fixture = await startHttpFixture({ log: () => undefined });
    suite.defer(() => fixture.close());
    const upstream = createHttpUpstream(
      {
        url: `${fixture.url}?key=${QUERY_KEY}`,
        headers: [{ name: 'X-Api-Key', value: HEADER }],
        env: {},
      },
      { log: () => undefined, enabled: () => false },
    );
    suite.defer(() => Promise.resolve(upstream.close()));

    const { send, out: frames } = telemetryBridge(
      upstream,
      otelTelemetry(parts, { transport: 'tcp', sessionId: 'IrJwDa5X9j_0HIEiPLIfsuSB746CniFQ' }),
    );
    const out = frames as Reply[];
    const reply = async (id: unknown): Promise<Reply> => {
      await waitFor(() => out.some((frame) => frame.id === id && frame.method === undefined));
      return out.find((frame) => frame.id === id && frame.method === undefined)!;
    };
    const meta = { traceparent: `00-${TRACE}-b7ad6b7169203331-01` };

    send(INITIALIZE);
    expect((await reply(1)).error).toBeUndefined();
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: ARGUMENT }, _meta: meta },
    });
    expect(JSON.stringify((await reply(2)).result)).toContain(ARGUMENT);
    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'ask_form', arguments: {}, _meta: meta },
    });
    await waitFor(() => out.some((frame) => frame.method === 'elicitation/create'));
    const ask = out.find((frame) => frame.method === 'elicitation/create')!;
    send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: ANSWER } } });
    expect(JSON.stringify((await reply(3)).result)).toContain(ANSWER);

    const spans = exporter.getFinishedSpans();
    // The run did what the scan is about: a sign-in, both calls, the input round.
    const names = spans.map((span) => span.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'mcp.bridge.sign_in',
        'mcp.bridge.token_lock.wait',
        'tools/call echo',
        'tools/call ask_form',
        'elicitation/create',
      ]),
    );
    const record = await store.read({
      url: mcp.url,
      identity: 'mcp-bridge-vscode|default|http://127.0.0.1:0/callback',
    });
    expect(secretsOf(record).length).toBeGreaterThan(0);
    expectNoSecrets({ lines: exportedSpans(spans), stderr: [] }, [
      ...secretsOf(record),
      ...h.sentSecrets,
      ARGUMENT,
      ANSWER,
      HEADER,
      QUERY_KEY,
      'IrJwDa5X9j_0HIEiPLIfsuSB746CniFQ',
    ]);
  });
});
