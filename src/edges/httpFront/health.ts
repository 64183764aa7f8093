/**
 * The health route of the front end, `GET /healthz` (docs/serve.md#serve-rules): the upstream's
 * state as a small JSON object. It passes the same Host, Origin and token checks as `/mcp`, so a
 * server with a token asks for it here too; the body names no URL, command line or secret.
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from './streams.js';

/**
 * The upstream's state as serve sees it. `idle`: not connected yet (an upstream that connects on
 * the first `initialize`) or between connections; healthy, because the next `initialize` starts it.
 * `down`: the last connection failed or its child exited.
 */
export type UpstreamState = 'connected' | 'idle' | 'down';

/** The path of the health route. */
export const HEALTH_PATH = '/healthz';

/** 200 for a usable upstream, 503 for one that is down; HEAD gets the status without a body. */
export function replyHealth(res: ServerResponse, method: string | undefined, state: UpstreamState): void {
  const status = state === 'down' ? 503 : 200;
  if (method === 'HEAD') {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end();
    return;
  }
  sendJson(
    res,
    status,
    { status: state === 'down' ? 'down' : 'ok', upstream: state },
    {
      'cache-control': 'no-store',
    },
  );
}
