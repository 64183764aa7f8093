/**
 * The HTTP server of the front end (docs/serve.md#serve-rules): one endpoint, `/mcp`, on a
 * loopback address by default. Each request passes the Host check (DNS rebinding), the Origin
 * check, the bearer token when the server has one, and the CORS rules of `--allow-origin`
 * before its session sees it (docs/serve.md#serve-security).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { OperatorFunction } from 'rxjs';
import type { Logger } from '../../ports/logger.js';
import type { RoutedFrame } from '../../ports/routedFrame.js';
import type { Inbound } from '../../protocol/parseLine.js';
import { parseBody, readBody } from './body.js';
import { limitConnections } from './connectionLimit.js';
import { exchangeOf } from './exchange.js';
import { HEALTH_PATH, replyHealth } from './health.js';
import type { UpstreamState } from './health.js';
import { METRICS_PATH, replyMetrics } from './metricsRoute.js';
import { listenAll, shownAddress } from './listen.js';
import {
  acceptsEventStream,
  acceptsPost,
  firstHeader,
  hostAllowed,
  isJsonContent,
  originAllowed,
} from './rules.js';
import { createSessionTable, refuse } from './sessionTable.js';
import type { SessionTable } from './sessionTable.js';
import { createTokenThrottle } from './tokenThrottle.js';
import { digest, tokenPasses } from './tokenStep.js';
import type { TokenFront } from './tokenStep.js';
import type { ExtraHeaders } from './streams.js';
import { sendJson } from './streams.js';

/** The path of the endpoint. */
export const MCP_PATH = '/mcp';

/** Settings of the HTTP front end (docs/serve.md#serve-limits). */
export interface HttpFrontConfig {
  /** Address to bind; loopback unless a token is set. */
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  /** Origins whose browsers may call (CORS); nothing else gets CORS headers. */
  readonly allowOrigins: readonly string[];
  /** The bearer token clients must send; undefined: none. */
  readonly token?: string;
  readonly maxBodyBytes: number;
  readonly maxSessions: number;
  readonly maxPending: number;
  readonly sessionIdleMs: number;
  readonly keepAliveMs: number;
  readonly maxBufferedFrames: number;
  /** Time for a request's headers and body to arrive (408, then the connection closes). */
  readonly bodyTimeoutMs: number;
  /** Open connections; beyond, a new one is closed at once. */
  readonly maxConnections: number;
  /** Bytes of output one session's client may leave unread before the session ends. */
  readonly maxSessionBufferBytes: number;
  readonly maxDepth: number;
  /** The bridge; its frames carry the client request that made them (docs/serve.md#serve-routing). */
  readonly bridge: OperatorFunction<Inbound, RoutedFrame>;
  /** The bridge of one session by its id, instead of `bridge` (SessionTableSettings.sessionBridge). */
  readonly sessionBridge?: (sessionId: string) => OperatorFunction<Inbound, RoutedFrame>;
  readonly logger: Logger;
  readonly modern?: ModernLeg;
  /** The upstream's state for `GET /healthz` (docs/serve.md#serve-rules); undefined: no such route. */
  readonly health?: () => UpstreamState;
  /** The text of `GET /metrics` (docs/observability.md#observability-metrics); undefined: no such route. */
  readonly metrics?: () => Promise<string>;
  /** Counts a request refused by a limit, by the limit's name (docs/observability.md#observability-metrics). */
  readonly refused?: (limit: string) => void;
}

/**
 * A second leg for POSTs that are not of the 2025 revisions (embedded mode: the server's own
 * 2026-07-28 handler, docs/embedded.md#embedded-http). It sees a POST without `Mcp-Session-Id`
 * after the Host, Origin, token and Content-Type checks, with its whole body.
 */
export interface ModernLeg {
  readonly takes: (req: IncomingMessage, body: Buffer) => Promise<boolean>;
  readonly serve: (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void>;
  readonly close: () => Promise<void>;
}

/** A running front end. */
export interface HttpFront {
  /** `http://<host>:<port>/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Sessions open now. */
  readonly sessions: () => number;
  /** Ends every session and closes the server. */
  close(): Promise<void>;
}

const ALLOWED_HEADERS =
  'Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID';

/** What the request handlers of one server share. */
interface Front extends TokenFront {
  readonly config: HttpFrontConfig;
  readonly table: SessionTable;
}

/** The CORS headers of a response to `origin`: only for the origins of --allow-origin. */
function corsOf(origin: string | undefined, allowOrigins: readonly string[]): ExtraHeaders {
  return origin !== undefined && allowOrigins.includes(origin)
    ? {
        'access-control-allow-origin': origin,
        'access-control-expose-headers': 'Mcp-Session-Id',
        vary: 'Origin',
      }
    : {};
}

/** /healthz and /metrics: same token rule as /mcp (docs/serve.md#serve-health), GET and HEAD only. */
function routeRead(
  front: Front,
  req: IncomingMessage,
  res: ServerResponse,
  reply: () => void | Promise<void>,
): void | Promise<void> {
  if (!tokenPasses(front, req, res, {})) return;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return refuse(res, 'method_not_allowed', {});
  }
  return reply();
}

/** CORS preflight, for the origins of --allow-origin only. */
function replyPreflight(res: ServerResponse, cors: ExtraHeaders): void {
  if (Object.keys(cors).length === 0) return refuse(res, 'forbidden_origin', {});
  res.writeHead(204, {
    ...cors,
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': '600',
  });
  res.end();
}

/** A POST to /mcp: its body within the limits, then the modern leg or the session table. */
async function handlePost(
  front: Front,
  req: IncomingMessage,
  res: ServerResponse,
  cors: ExtraHeaders,
): Promise<void> {
  const { config, table } = front;
  const modern = config.modern;
  if (modern === undefined && !acceptsPost(firstHeader(req.headers.accept))) {
    return refuse(res, 'not_acceptable', cors);
  }
  if (!isJsonContent(firstHeader(req.headers['content-type']))) {
    return refuse(res, 'unsupported_media_type', cors);
  }
  const read = await readBody(req, config.maxBodyBytes, config.bodyTimeoutMs);
  if (read.kind === 'closed') return;
  if (read.kind !== 'body') {
    res.setHeader('connection', 'close');
    config.refused?.(read.kind === 'timeout' ? 'body_timeout' : 'max_body_bytes');
    return refuse(res, read.kind === 'timeout' ? 'body_timeout' : 'body_too_large', cors);
  }
  const body = read.bytes;
  if (
    modern !== undefined &&
    req.headers['mcp-session-id'] === undefined &&
    (await modern.takes(req, body))
  ) {
    return modern.serve(req, res, body);
  }
  if (!acceptsPost(firstHeader(req.headers.accept))) return refuse(res, 'not_acceptable', cors);
  const parsed = parseBody(body, { maxDepth: config.maxDepth, maxLineBytes: config.maxBodyBytes });
  if (parsed.kind === 'bad') return sendJson(res, 400, parsed.frame, cors);
  return table.post(exchangeOf(req, res, config.keepAliveMs), parsed.messages, cors);
}

/** A request to /mcp after the host, origin and path checks. */
function handleMcp(
  front: Front,
  req: IncomingMessage,
  res: ServerResponse,
  cors: ExtraHeaders,
): void | Promise<void> {
  const { config, table } = front;
  if (req.method === 'OPTIONS') return replyPreflight(res, cors);
  if (!tokenPasses(front, req, res, cors)) return;
  switch (req.method) {
    case 'POST':
      return handlePost(front, req, res, cors);
    case 'GET':
      if (!acceptsEventStream(firstHeader(req.headers.accept))) return refuse(res, 'not_acceptable', cors);
      return table.get(exchangeOf(req, res, config.keepAliveMs), cors);
    case 'DELETE':
      return table.delete(exchangeOf(req, res, config.keepAliveMs), cors);
    default:
      res.setHeader('allow', 'GET, POST, DELETE');
      return refuse(res, 'method_not_allowed', cors);
  }
}

/** Starts the server; resolves once it listens. */
export async function startHttpFront(config: HttpFrontConfig): Promise<HttpFront> {
  const front: Front = {
    config,
    table: createSessionTable(config),
    tokenDigest: config.token === undefined ? undefined : digest(config.token),
    throttle: createTokenThrottle(() => performance.now()),
  };
  const { table } = front;
  let port = config.port;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const origin = firstHeader(req.headers.origin);
    const cors = corsOf(origin, config.allowOrigins);
    // Node keeps the first of two Host headers; a proxy may read the other (docs/serve.md#serve-rules).
    if ((req.headersDistinct.host?.length ?? 0) > 1) return refuse(res, 'duplicate_host', {});
    if (!hostAllowed(firstHeader(req.headers.host), port, config.host))
      return refuse(res, 'forbidden_host', {});
    if (!originAllowed(origin, port, config.allowOrigins)) return refuse(res, 'forbidden_origin', {});
    const path = (req.url ?? '').split('?')[0];
    if (path === HEALTH_PATH && config.health !== undefined) {
      const health = config.health;
      return routeRead(front, req, res, () => replyHealth(res, req.method, health()));
    }
    if (path === METRICS_PATH && config.metrics !== undefined) {
      const metrics = config.metrics;
      return routeRead(front, req, res, () => replyMetrics(res, req.method, metrics));
    }
    if (path !== MCP_PATH) return refuse(res, 'not_found', cors);
    return handleMcp(front, req, res, cors);
  };

  // docs/serve.md#serve-limits: Node checks the headers and request times of its connections at
  // this interval, so a short --body-timeout is kept near its value.
  const checkEvery = Math.min(30_000, Math.max(100, Math.floor(config.bodyTimeoutMs / 4)));
  const make = (): Server => {
    const server = createServer({ connectionsCheckingInterval: checkEvery }, (req, res) => {
      handle(req, res).catch((error: unknown) => {
        config.logger.log(
          'serve',
          'err',
          `an HTTP request failed inside the server (${error instanceof Error ? error.name : typeof error})`,
        );
        if (!res.headersSent) sendJson(res, 500, undefined);
        else res.destroy();
      });
    });
    // A slow or stuck client holds no socket for ever: its headers and body must arrive within the
    // body timeout (Node's bare 408 for headers, body.ts's for a body). Both count only until the
    // request has arrived, so event streams stay long-lived.
    server.headersTimeout = config.bodyTimeoutMs;
    server.requestTimeout = config.bodyTimeoutMs;
    // The cap counts per listening address (docs/serve.md#serve-limits).
    limitConnections(server, config.maxConnections, config.logger, config.refused);
    return server;
  };
  // docs/serve.md#serve-loopback: both loopback addresses on one port.
  const bound = await listenAll(make, config.host, config.port, config.logger);
  port = bound.port;
  return {
    url: `http://${shownAddress(config.host)}:${port}${MCP_PATH}`,
    port,
    sessions: () => table.size,
    close: () =>
      new Promise<void>((resolve) => {
        table.closeAll();
        const legDone = config.modern?.close() ?? Promise.resolve();
        let open = bound.servers.length;
        for (const server of bound.servers) {
          server.close(() => {
            open -= 1;
            if (open === 0) void legDone.catch(() => undefined).then(resolve);
          });
          server.closeAllConnections();
        }
      }),
  };
}
