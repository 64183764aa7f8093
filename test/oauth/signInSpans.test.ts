/**
 * The spans of the sign-in (docs/observability.md#observability-sign-in) in-process against
 * oidc-provider: a sign-in, a refresh and a wait for the token lock, each a child of the refused
 * request's trace context, with the grant, the outcome and the authorization server's host and
 * port; no token, code or URL path in anything exported.
 */
import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/oauth/store/memoryStore.js';
import type { UpstreamAuth } from '../../src/ports/signIn.js';
import { otelSignInTelemetry } from '../../src/telemetry/otelTelemetry.js';
import { movableClock } from '../fixtures/oauth/movableClock.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { exportedSpans } from '../telemetry/telemetryBridge.js';
import { post, secretsOf, signInSuite } from './signInHarness.js';
import type { Harness } from './signInHarness.js';

const suite = signInSuite();
const { make, servers } = suite;

const TRACE = '5b8aa5a2d2c872e8321cf37308d69df2';
const PARENT = '051581bf3cb55c13';
const KEY = { url: '', identity: 'mcp-bridge-vscode|default|http://127.0.0.1:0/callback' };

/** A harness's auth observed by the OpenTelemetry sign-in spans into an in-memory exporter. */
function observed(h: Harness): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  h.auth.observe?.(
    otelSignInTelemetry({
      api,
      tracer: provider.getTracer('test'),
      propagator: new W3CTraceContextPropagator(),
    }),
  );
  return exporter;
}

/** What the HTTP upstream does: a POST, on 401 the challenge with the request's trace context, a POST again. */
async function tracedRequest(url: string, auth: UpstreamAuth): Promise<number> {
  const authorization = auth.header();
  const first = await post(suite.net.fetch, url, auth);
  if (first.status !== 401) return first.status;
  await auth.challenge({
    status: 401,
    wwwAuthenticate: first.wwwAuthenticate,
    method: 'tools/list',
    signal: new AbortController().signal,
    authorization,
    trace: { traceparent: `00-${TRACE}-${PARENT}-01` },
  });
  return (await post(suite.net.fetch, url, auth)).status;
}

/** Name, trace, parent and attributes of each span, by name. */
const summary = (spans: readonly ReadableSpan[]): unknown[] =>
  spans
    .map((span) => ({
      name: span.name,
      trace: span.spanContext().traceId,
      parent: span.parentSpanContext?.spanId,
      error: span.status.code === api.SpanStatusCode.ERROR,
      attributes: span.attributes,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));

describe('sign-in spans', () => {
  it('a sign-in: the wait for the lock and the sign-in, children of the refused request', async () => {
    const { as, mcp } = await servers();
    const store = createMemoryStore();
    const h = make({ config: { url: mcp.url }, store });
    const exporter = observed(h);
    expect(await tracedRequest(mcp.url, h.auth)).toBe(200);

    const port = Number(new URL(as.issuer).port);
    expect(summary(exporter.getFinishedSpans())).toEqual([
      {
        name: 'mcp.bridge.sign_in',
        trace: TRACE,
        parent: PARENT,
        error: false,
        attributes: {
          'mcp.bridge.auth.grant': 'authorization_code',
          'mcp.bridge.auth.outcome': 'ok',
          'server.address': '127.0.0.1',
          'server.port': port,
        },
      },
      { name: 'mcp.bridge.token_lock.wait', trace: TRACE, parent: PARENT, error: false, attributes: {} },
    ]);
    const record = await store.read({ ...KEY, url: mcp.url });
    expect(record?.accessToken).toBeTypeOf('string');
    expectNoSecrets({ lines: exportedSpans(exporter.getFinishedSpans()), stderr: [] }, [
      ...secretsOf(record),
      ...h.sentSecrets,
      mcp.url,
    ]);
  });

  it('a refresh: its span with the grant refresh_token, and no sign-in span', async () => {
    const clock = movableClock();
    const { as, mcp } = await servers({ accessTokenTtlSeconds: 1, now: clock.now });
    const store = createMemoryStore();
    const first = make({ config: { url: mcp.url }, store });
    expect(await tracedRequest(mcp.url, first.auth)).toBe(200);
    clock.move(2_000);

    const second = make({ config: { url: mcp.url }, store });
    await second.auth.load();
    const exporter = observed(second);
    expect(await tracedRequest(mcp.url, second.auth)).toBe(200);

    expect(as.stats().refreshGrants).toBe(1);
    expect(summary(exporter.getFinishedSpans())).toEqual([
      {
        name: 'mcp.bridge.refresh',
        trace: TRACE,
        parent: PARENT,
        error: false,
        attributes: {
          'mcp.bridge.auth.grant': 'refresh_token',
          'mcp.bridge.auth.outcome': 'ok',
          'server.address': '127.0.0.1',
          'server.port': Number(new URL(as.issuer).port),
        },
      },
      { name: 'mcp.bridge.token_lock.wait', trace: TRACE, parent: PARENT, error: false, attributes: {} },
    ]);
    expectNoSecrets({ lines: exportedSpans(exporter.getFinishedSpans()), stderr: [] }, [
      ...secretsOf(await store.read({ ...KEY, url: mcp.url })),
      ...second.sentSecrets,
      ...first.sentSecrets,
    ]);
  });

  it('a sign-in the user denies: failed, with its error type', async () => {
    const { mcp } = await servers();
    const h = make({ config: { url: mcp.url } });
    h.browserMode = 'deny';
    const exporter = observed(h);
    await expect(tracedRequest(mcp.url, h.auth)).rejects.toMatchObject({ code: 'sign_in_denied' });

    const signIn = summary(exporter.getFinishedSpans())[0];
    expect(signIn).toMatchObject({
      name: 'mcp.bridge.sign_in',
      error: true,
      attributes: {
        'mcp.bridge.auth.outcome': 'failed',
        'error.type': 'sign_in_denied',
      },
    });
  });
});
