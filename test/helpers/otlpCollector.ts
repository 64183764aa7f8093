/**
 * A local OTLP/HTTP collector for the process tests of docs/observability.md: it records every
 * POST as it came (path, content type, bytes), and parses the spans and resources of the http/json
 * ones to /v1/traces and the metric names of those to /v1/metrics. The bytes stay, so a test can
 * run the secret scan over everything that was exported.
 *
 *   const collector = await startCollector();      // closed by closeCollectors() after each test
 *   spawn bridge with envWith({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, … });
 *   await waitFor(() => collector.spans.length >= 4);
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: number | string;
  readonly arrayValue?: { readonly values: readonly OtlpValue[] };
}

export interface OtlpSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: readonly { readonly key: string; readonly value: OtlpValue }[];
}

export interface OtlpPost {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

export interface Collector {
  readonly server: Server;
  readonly url: string;
  readonly posts: OtlpPost[];
  readonly spans: OtlpSpan[];
  readonly resources: unknown[];
  /** The name of every metric of every http/json export to /v1/metrics, in order. */
  readonly metricNames: string[];
}

interface TracesJson {
  readonly resourceSpans: { resource: unknown; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

interface MetricsJson {
  readonly resourceMetrics: { scopeMetrics: { metrics: { name: string }[] }[] }[];
}

const open: Collector[] = [];

function record(collector: Omit<Collector, 'server' | 'url'>, post: OtlpPost): void {
  collector.posts.push(post);
  if (!post.contentType.startsWith('application/json')) return;
  const text = post.body.toString('utf8');
  if (post.path === '/v1/traces') {
    for (const resource of (JSON.parse(text) as TracesJson).resourceSpans) {
      collector.resources.push(resource.resource);
      for (const scope of resource.scopeSpans) collector.spans.push(...scope.spans);
    }
  }
  if (post.path === '/v1/metrics') {
    for (const resource of (JSON.parse(text) as MetricsJson).resourceMetrics)
      for (const scope of resource.scopeMetrics)
        collector.metricNames.push(...scope.metrics.map((metric) => metric.name));
  }
}

/** A collector on a free loopback port; every POST is answered 200 `{}`. */
export async function startCollector(): Promise<Collector> {
  const seen: Omit<Collector, 'server' | 'url'> = { posts: [], spans: [], resources: [], metricNames: [] };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      record(seen, {
        path: request.url ?? '',
        contentType: request.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const collector = { ...seen, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  open.push(collector);
  return collector;
}

/** Closes every collector started since the last call (for `afterEach`). */
export function closeCollectors(): void {
  for (const collector of open.splice(0)) collector.server.close();
}

/** The environment without any OTEL_ variable of the machine, plus `extra`. */
export function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('OTEL_')) env[key] = value;
  return { ...env, ...extra };
}

/** The value of an OTLP attribute as plain JSON: a string, a number, or a list of them. */
export function plain(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.arrayValue !== undefined) return value.arrayValue.values.map(plain);
  return value;
}

export const attributesOf = (span: OtlpSpan): Record<string, unknown> =>
  Object.fromEntries(span.attributes.map(({ key, value }) => [key, plain(value)]));
