/**
 * The metrics route of the front end, `GET /metrics` with `serve --metrics`
 * (docs/observability.md#observability-metrics): the bridge's metrics in the Prometheus text
 * format. It passes the same Host, Origin and token checks as `/mcp`; the text holds names,
 * units, counts and the attributes of docs/observability.md, no secret.
 */
import type { ServerResponse } from 'node:http';

/** The path of the metrics route. */
export const METRICS_PATH = '/metrics';

/** The content type of the Prometheus text format 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** 200 with the text; HEAD gets the status without it. */
export async function replyMetrics(
  res: ServerResponse,
  method: string | undefined,
  scrape: () => Promise<string>,
): Promise<void> {
  const headers = { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' };
  if (method === 'HEAD') {
    res.writeHead(200, headers);
    res.end();
    return;
  }
  const text = await scrape();
  res.writeHead(200, { ...headers, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
