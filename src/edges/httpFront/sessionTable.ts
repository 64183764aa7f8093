/**
 * The sessions of the HTTP front end and the handling of POST, GET and DELETE for them
 * (docs/serve.md#serve-sessions, docs/serve.md#serve-errors): a fresh unguessable id per
 * `initialize`, the limit of sessions (the idle session used longest ago ends to make room), the
 * in-flight limit of all sessions (`limitInFlight`, with the bridge's rule of which messages
 * count), the MCP-Protocol-Version check, and `server/discover` without a session.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Subject, asyncScheduler } from 'rxjs';
import type { OperatorFunction, SchedulerLike } from 'rxjs';
import { limitInFlight } from '../../../operators/limitInFlight.js';
import { takesInFlightPlace } from '../../ports/inFlight.js';
import type { Logger } from '../../ports/logger.js';
import type { RoutedFrame } from '../../ports/routedFrame.js';
import { bridgeErrorFrame } from '../../protocol/errors.js';
import type { RequestId } from '../../protocol/jsonrpc.js';
import type { Inbound } from '../../protocol/parseLine.js';
import type { Exchange } from './exchange.js';
import { createFrontSession } from './frontSession.js';
import type { Admission, FrontSession } from './frontSession.js';
import { isSessionIdShape, protocolVersionAllowed, refusalBody, REFUSALS } from './rules.js';
import type { RefusalCause } from './rules.js';
import { sendJson } from './streams.js';
import type { ExtraHeaders } from './streams.js';

/** The limits and settings of the sessions. */
export interface SessionTableSettings {
  /** The bridge; its frames carry the client request that made them (docs/serve.md#serve-routing). */
  readonly bridge: OperatorFunction<Inbound, RoutedFrame>;
  /**
   * The bridge of one session, by its id, when given: `bridge` is then not used. For a bridge
   * whose telemetry names the session (docs/observability.md#observability-session).
   */
  readonly sessionBridge?: (sessionId: string) => OperatorFunction<Inbound, RoutedFrame>;
  readonly logger: Logger;
  readonly maxSessions: number;
  /** Requests in flight in all sessions together. */
  readonly maxPending: number;
  /** Counts a request refused by a limit, by the limit's name (docs/observability.md#observability-metrics). */
  readonly refused?: (limit: string) => void;
  /** A session without a request and without an open stream for this long ends. */
  readonly sessionIdleMs: number;
  readonly maxBufferedFrames: number;
  /** Most bytes of output one session's client may leave unread. */
  readonly maxSessionBufferBytes: number;
  /** The keep-alive interval: also that of the check of unread output. */
  readonly keepAliveMs: number;
  /** The clock of the sessions' idle timers. Default: asyncScheduler. */
  readonly scheduler?: SchedulerLike;
  /** Makes a session id. Default: 24 random bytes, base64url. */
  readonly newId?: () => string;
}

/** The sessions of one server. */
export interface SessionTable {
  post(exchange: Exchange, messages: readonly Inbound[], headers: ExtraHeaders): void;
  get(exchange: Exchange, headers: ExtraHeaders): void;
  delete(exchange: Exchange, headers: ExtraHeaders): void;
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

const refuseOn = (
  exchange: Exchange,
  cause: RefusalCause,
  headers: ExtraHeaders,
  id: RequestId | null = null,
): void => exchange.reply(REFUSALS[cause][0], refusalBody(cause, id), headers);

const requestOf = (m: Inbound | undefined): { id: RequestId; method: string } | undefined =>
  m !== undefined && m.kind === 'frame' && 'method' in m.frame && 'id' in m.frame
    ? { id: m.frame.id, method: m.frame.method }
    : undefined;

/** The session used longest ago among those with nothing in flight and no open stream. */
function leastRecentlyUsed(sessions: Iterable<FrontSession>): FrontSession | undefined {
  let found: FrontSession | undefined;
  for (const session of sessions) {
    if (session.inFlight > 0 || session.openStreams > 0) continue;
    if (found === undefined || session.lastActive < found.lastActive) found = session;
  }
  return found;
}

export function createSessionTable(s: SessionTableSettings): SessionTable {
  const scheduler = s.scheduler ?? asyncScheduler;
  const sessions = new Map<string, FrontSession>();
  // docs/serve.md#serve-limits: one in-flight limit for every session's messages; a request
  // takes its place from its admission until it leaves its session (sessionRequests.ts).
  const admissions = new Subject<Admission>();
  const admitted = admissions
    .pipe(
      limitInFlight(
        { maxInFlight: s.maxPending, counts: (a: Admission) => takesInFlightPlace(a.inbound) },
        (a) => a.run,
        (a) => {
          s.refused?.('max_requests');
          return a.refuse;
        },
      ),
    )
    .subscribe();

  /** docs/serve.md#serve-sessions: when the table is full, the idle session used longest ago ends. */
  const makeRoom = (): boolean => {
    if (sessions.size < s.maxSessions) return true;
    const oldest = leastRecentlyUsed(sessions.values());
    if (oldest === undefined) return false;
    const idleFor = Math.round((scheduler.now() - oldest.lastActive) / 1000);
    s.logger.log(
      'serve',
      'info',
      `the table of ${s.maxSessions} sessions is full: the session idle longest (${idleFor} s) ends to make room`,
    );
    oldest.end('evicted');
    return sessions.size < s.maxSessions;
  };

  const open = (): FrontSession => {
    const id = (s.newId ?? newSessionId)();
    const session = createFrontSession({
      id,
      bridge: s.sessionBridge?.(id) ?? s.bridge,
      logger: s.logger,
      maxBufferedFrames: s.maxBufferedFrames,
      maxSessionBufferBytes: s.maxSessionBufferBytes,
      keepAliveMs: s.keepAliveMs,
      sessionIdleMs: s.sessionIdleMs,
      scheduler,
      admit: (admission) => admissions.next(admission),
      onEnd: (ended) => sessions.delete(ended),
    });
    sessions.set(session.id, session);
    return session;
  };

  /** The session of a request, or the refusal already written. */
  const sessionOf = (exchange: Exchange, headers: ExtraHeaders): FrontSession | undefined => {
    const id = exchange.sessionId;
    const session = id !== undefined && isSessionIdShape(id) ? sessions.get(id) : undefined;
    if (id === undefined) refuseOn(exchange, 'session_required', headers);
    else if (session === undefined) refuseOn(exchange, 'session_not_found', headers);
    else if (!protocolVersionAllowed(exchange.protocolVersion)) {
      refuseOn(exchange, 'bad_protocol_version', headers);
    } else return session;
    return undefined;
  };

  /** A POST without a session: an `initialize` opens one; a probe gets the stdio bridge's answer. */
  const sessionless = (exchange: Exchange, messages: readonly Inbound[], headers: ExtraHeaders): void => {
    const first = requestOf(messages[0]);
    // docs/serve.md#serve-sessions: `server/discover` is no method of the 2025 revisions, so it
    // needs no session: -32601 with its id, as over stdio, and the client falls back at once.
    if (messages.length === 1 && first?.method === 'server/discover') {
      return exchange.reply(200, bridgeErrorFrame(first.id, 'method_not_found'), headers);
    }
    const init = requestOf(messages.find((m) => requestOf(m)?.method === 'initialize'));
    if (init === undefined) return refuseOn(exchange, 'session_required', headers);
    if (messages.length > 1) return refuseOn(exchange, 'batch_not_supported', headers, init.id);
    if (!makeRoom()) {
      s.refused?.('max_sessions');
      return refuseOn(exchange, 'too_many_sessions', headers, init.id);
    }
    open().post(messages, exchange, headers);
  };

  return {
    post(exchange, messages, headers) {
      if (exchange.sessionId === undefined) return sessionless(exchange, messages, headers);
      sessionOf(exchange, headers)?.post(messages, exchange, headers);
    },
    get(exchange, headers) {
      sessionOf(exchange, headers)?.get(exchange, headers);
    },
    delete(exchange, headers) {
      const session = sessionOf(exchange, headers);
      if (session === undefined) return;
      session.end('the client deleted it');
      exchange.reply(200, undefined, headers);
    },
    closeAll() {
      for (const session of [...sessions.values()]) session.end('the server stops');
      admitted.unsubscribe();
    },
    get size() {
      return sessions.size;
    },
  };
}
