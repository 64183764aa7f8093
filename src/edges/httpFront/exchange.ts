/**
 * One HTTP request as the sessions see it (docs/serve.md#serve-sessions): the session headers it
 * carries and the ways to answer it. The server makes one from a Node request and response; the
 * tests of the session table and the front session make plain ones, without sockets.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Frame, JsonObject } from '../../protocol/jsonrpc.js';
import { firstHeader } from './rules.js';
import { createPostStream, openEventStream, sendJson } from './streams.js';
import type { EventStream, ExtraHeaders, PostStream } from './streams.js';
import type { OutputGuard } from './sessionOutput.js';

/** One HTTP request of a session, and its answer. */
export interface Exchange {
  /** The `Mcp-Session-Id` header; undefined without one. */
  readonly sessionId: string | undefined;
  /** The `MCP-Protocol-Version` header; undefined without one. */
  readonly protocolVersion: string | undefined;
  /** Answers with one JSON body (none for `undefined`) and ends. */
  reply(status: number, body: JsonObject | Frame | undefined, headers: ExtraHeaders): void;
  /**
   * Answers a POST of `expected` requests (docs/serve.md#serve-responses); its unwritten bytes
   * count toward its session's unread output (`guard`).
   */
  postStream(expected: number, headers: () => ExtraHeaders, guard?: OutputGuard): PostStream;
  /** Answers with an event stream (a GET), its bytes guarded as those of a POST. */
  eventStream(headers: ExtraHeaders, guard?: OutputGuard): EventStream;
  /** Calls `listener` once the connection of this request closes (answered, or dropped). */
  onClose(listener: () => void): void;
}

const header = (req: IncomingMessage, name: string): string | undefined => firstHeader(req.headers[name]);

/** The exchange of a Node request and its response. */
export function exchangeOf(req: IncomingMessage, res: ServerResponse, keepAliveMs: number): Exchange {
  return {
    sessionId: header(req, 'mcp-session-id'),
    protocolVersion: header(req, 'mcp-protocol-version'),
    reply: (status, body, headers) => sendJson(res, status, body, headers),
    postStream: (expected, headers, guard) =>
      createPostStream(res, expected, headers, keepAliveMs, undefined, guard),
    eventStream: (headers, guard) => openEventStream(res, headers, keepAliveMs, undefined, guard),
    onClose: (listener) => {
      res.once('close', listener);
    },
  };
}
