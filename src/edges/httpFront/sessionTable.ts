/**
 * The sessions of the HTTP front end and the handling of POST, GET and DELETE for them
 * (docs/serve.md#serve-sessions, docs/serve.md#serve-errors): a fresh unguessable id per
 * `initialize`, the limits on sessions and on requests in flight in all sessions, the
 * MCP-Protocol-Version check, and the expiry of idle sessions.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperatorFunction } from 'rxjs';
import type { Logger } from '../../ports/logger.js';
import { bridgeErrorFrame } from '../../protocol/errors.js';
import type { Frame, RequestId } from '../../protocol/jsonrpc.js';
import type { Inbound } from '../../protocol/parseLine.js';
import { createFrontSession } from './frontSession.js';
import type { FrontSession } from './frontSession.js';
import { isSessionIdShape, protocolVersionAllowed, refusalBody, REFUSALS } from './rules.js';
import type { RefusalCause } from './rules.js';
import { sendJson } from './streams.js';
import type { ExtraHeaders } from './streams.js';

/** The limits and settings of the sessions. */
export interface SessionTableSettings {
  readonly bridge: OperatorFunction<Inbound, Frame>;
  readonly originOf: (frame: Frame) => RequestId | undefined;
  readonly logger: Logger;
  readonly maxSessions: number;
  /** Requests waiting for their response in all sessions together. */
  readonly maxPending: number;
  /** A session without a request and without an open stream for this long ends. */
  readonly sessionIdleMs: number;
  readonly keepAliveMs: number;
  readonly maxBufferedFrames: number;
}

/** The sessions of one server. */
export interface SessionTable {
  post(req: IncomingMessage, res: ServerResponse, messages: readonly Inbound[], headers: ExtraHeaders): void;
  get(req: IncomingMessage, res: ServerResponse, headers: ExtraHeaders): void;
  delete(req: IncomingMessage, res: ServerResponse, headers: ExtraHeaders): void;
  /** Ends every session (the server stops). */
  closeAll(): void;
  readonly size: number;
}

/** docs/serve.md#serve-sessions: 192 random bits, base64url. */
const newSessionId = (): string => randomBytes(24).toString('base64url');

/** Writes a refusal with its status and JSON-RPC error. */
export function refuse(
  res: ServerResponse,
  cause: RefusalCause,
  headers: ExtraHeaders,
  id: RequestId | null = null,
): void {
  sendJson(res, REFUSALS[cause][0], refusalBody(cause, id), headers);
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const requestIds = (messages: readonly Inbound[]): RequestId[] =>
  messages.flatMap((m) => (m.kind === 'frame' && 'method' in m.frame && 'id' in m.frame ? [m.frame.id] : []));

const isInitialize = (m: Inbound): boolean =>
  m.kind === 'frame' && 'method' in m.frame && 'id' in m.frame && m.frame.method === 'initialize';

export function createSessionTable(s: SessionTableSettings): SessionTable {
  const sessions = new Map<string, FrontSession>();
  let pendingAll = 0;

  const open = (): FrontSession => {
    const id = newSessionId();
    const session = createFrontSession({
      id,
      bridge: s.bridge,
      originOf: s.originOf,
      logger: s.logger,
      keepAliveMs: s.keepAliveMs,
      maxBufferedFrames: s.maxBufferedFrames,
      onPending: (delta) => {
        pendingAll += delta;
      },
      onEnd: (ended) => {
        sessions.delete(ended);
      },
    });
    sessions.set(id, session);
    return session;
  };

  /** The session of a request, or the refusal already written. */
  const sessionOf = (
    req: IncomingMessage,
    res: ServerResponse,
    headers: ExtraHeaders,
  ): FrontSession | undefined => {
    const id = header(req, 'mcp-session-id');
    if (id === undefined) {
      refuse(res, 'session_required', headers);
      return undefined;
    }
    const session = isSessionIdShape(id) ? sessions.get(id) : undefined;
    if (session === undefined) {
      refuse(res, 'session_not_found', headers);
      return undefined;
    }
    if (!protocolVersionAllowed(header(req, 'mcp-protocol-version'))) {
      refuse(res, 'bad_protocol_version', headers);
      return undefined;
    }
    return session;
  };

  const withId = (session: FrontSession, headers: ExtraHeaders): ExtraHeaders => ({
    ...headers,
    'mcp-session-id': session.id,
  });

  const timer = setInterval(
    () => {
      const now = Date.now();
      for (const session of [...sessions.values()]) {
        if (session.openStreams === 0 && now - session.lastActive >= s.sessionIdleMs) {
          s.logger.log(
            'serve',
            'info',
            `a session was idle for ${Math.round(s.sessionIdleMs / 1000)} s: it ends`,
          );
          session.end('idle');
        }
      }
    },
    Math.min(Math.max(s.sessionIdleMs / 4, 50), 30_000),
  );
  timer.unref();

  return {
    post(req, res, messages, headers) {
      let session: FrontSession | undefined;
      if (header(req, 'mcp-session-id') === undefined) {
        const init = messages.find(isInitialize);
        if (init === undefined) return refuse(res, 'session_required', headers);
        const initId = requestIds([init])[0] ?? null;
        if (messages.length > 1) return refuse(res, 'batch_not_supported', headers, initId);
        if (sessions.size >= s.maxSessions) return refuse(res, 'too_many_sessions', headers, initId);
        session = open();
      } else {
        session = sessionOf(req, res, headers);
        if (session === undefined) return;
      }
      const ids = requestIds(messages);
      if (ids.length === 0) {
        session.post(messages, [], res, headers);
        sendJson(res, 202, undefined, withId(session, headers));
        return;
      }
      // docs/serve.md#serve-limits: requests above the limit of all sessions get the bridge's
      // too_many_requests error without reaching the bridge.
      const room = Math.max(0, s.maxPending - pendingAll);
      const over = new Set(ids.slice(room));
      const passed =
        over.size === 0
          ? messages
          : messages.filter(
              (m) => !(m.kind === 'frame' && 'id' in m.frame && 'method' in m.frame && over.has(m.frame.id)),
            );
      session.post(passed, ids, res, withId(session, headers));
      for (const id of over) session.refuse(bridgeErrorFrame(id, 'too_many_requests'), id);
    },
    get(req, res, headers) {
      const session = sessionOf(req, res, headers);
      if (session !== undefined) session.get(res, withId(session, headers));
    },
    delete(req, res, headers) {
      const session = sessionOf(req, res, headers);
      if (session === undefined) return;
      session.end('the client deleted it');
      sendJson(res, 200, undefined, headers);
    },
    closeAll() {
      clearInterval(timer);
      for (const session of [...sessions.values()]) session.end('the server stops');
    },
    get size() {
      return sessions.size;
    },
  };
}
