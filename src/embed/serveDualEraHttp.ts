/**
 * `serveDualEraHttp`: one server of this process serves both MCP revisions over HTTP at one
 * endpoint (docs/embedded.md#embedded-http). A POST of 2026-07-28 goes to the SDK's own handler
 * (`createMcpHandler`, strict, stateless); everything else is the bridge's 2025-11-25 front end
 * with sessions (docs/serve.md#serve-sessions), whose upstream is the same server over the
 * in-memory link. The SDK's own classification (`isLegacyRequest`) decides, so the two never
 * disagree.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { defer, of } from 'rxjs';
import type { ModernLeg } from '../edges/httpFront/server.js';
import { DEFAULT_MAX_BODY_BYTES, serveHttpOn } from '../node/serveHttp.js';
import type { HttpServer, ServeHttpOptions } from '../node/serveHttp.js';
import { ajvInputChecks } from '../node/inputChecks.js';
import { silentLogger } from '../ports/logger.js';
import { genericProfile } from '../profiles/generic.js';
import { DEFAULT_MAX_DEPTH } from '../protocol/parseLine.js';
import { EMBEDDED_LIMITS, createMemoryUpstream } from './legacyPath.js';

/** Settings of serveDualEraHttp: those of serveHttp without the upstream's own. */
export type ServeDualEraHttpOptions = Omit<
  ServeHttpOptions,
  'maxLineBytes' | 'maxResponseBytes' | 'env' | 'signIn' | 'compose'
>;

/** The web Request of a Node request whose body was read already. */
function webRequest(req: IncomingMessage, body: Buffer, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method ?? 'POST',
    headers,
    body: new Uint8Array(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

const parsedOf = (body: Buffer): unknown => {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
};

/** The SDK's handler as the second leg of the front end. */
function modernLeg(factory: McpServerFactory, maxBodyBytes: number): ModernLeg {
  const handler = createMcpHandler(factory, { legacy: 'reject', maxRequestBodySize: maxBodyBytes });
  return {
    takes: async (req, body) => {
      const parsed = parsedOf(body);
      // A body that is not JSON gets the front end's -32700 (docs/serve.md#serve-errors).
      if (parsed === undefined) return false;
      return !(await isLegacyRequest(webRequest(req, body), parsed, { maxRequestBodySize: maxBodyBytes }));
    },
    serve: async (req, res, body) => {
      // A client that goes away aborts its exchange in the SDK.
      const abort = new AbortController();
      res.once('close', () => abort.abort());
      const response = await handler.fetch(webRequest(req, body, abort.signal), {
        parsedBody: parsedOf(body),
      });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body === null) {
        res.end();
        return;
      }
      const stream = Readable.fromWeb(response.body);
      stream.on('error', () => res.destroy());
      stream.pipe(res);
    },
    close: () => handler.close(),
  };
}

/**
 * Serves the server of `factory` to clients of both revisions over HTTP and resolves once it
 * listens (docs/embedded.md#embedded-http); `close()` stops it.
 *
 * @example
 * import { serveDualEraHttp } from 'mcp-bridge-sdk/embed';
 * const server = await serveDualEraHttp(createServer, { port: 8808 });
 */
export function serveDualEraHttp(
  factory: McpServerFactory,
  options: ServeDualEraHttpOptions = {},
): Promise<HttpServer> {
  const logger = options.logger ?? silentLogger;
  const limits = { ...EMBEDDED_LIMITS, ...options.limits };
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const checks = options.checks ?? ajvInputChecks;
  return serveHttpOn(
    genericProfile,
    {
      connect: () =>
        defer(() =>
          of(
            createMemoryUpstream({
              factory,
              limits,
              maxLineBytes: maxBodyBytes,
              maxDepth: DEFAULT_MAX_DEPTH,
              name: options.name ?? 'mcp-server',
              version: options.version ?? '0.0.0',
              logger,
              checks,
            }),
          ),
        ),
      settle: () => Promise.resolve(),
      fallback: {},
    },
    { ...options, logger, limits, checks, name: options.name ?? 'mcp-server' },
    modernLeg(factory, maxBodyBytes),
  );
}
