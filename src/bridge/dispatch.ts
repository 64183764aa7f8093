/**
 * What the front end does with each client line (docs/lifecycle.md#lifecycle-before-ready–docs/lines.md#lines-client-responses).
 */
import { EMPTY, defer, of } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import { listOfRequest } from '../codec/listen.js';
import { isLogLevel } from '../codec/logMessage.js';
import { isModernRequest } from '../codec/meta.js';
import { bridgeErrorFrame } from '../protocol/errors.js';
import type { Frame, NotificationFrame, RequestFrame, ResponseFrame } from '../protocol/jsonrpc.js';
import { isErrorResponse, isRequest, isResponse, result } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';
import type { BridgeConfig, BridgeDeps } from './config.js';
import { FORWARDED_METHODS, createForward, shapeOptions } from './forward.js';
import type { ForwardContext } from './forward.js';
import { afterFirstAck, watchesList } from './firstList.js';
import { handleInitialize } from './initialize.js';
import { handleSubscription } from './listener.js';
import type { ListenerSlot } from './listener.js';
import type { ClientContext, Session } from './session.js';
import type { UpstreamConnection } from '../ports/upstream.js';

export interface DispatchContext {
  readonly session: Session;
  readonly config: BridgeConfig;
  readonly deps: BridgeDeps;
  readonly scheduler: SchedulerLike | undefined;
  /** The running listener of this connection (listener.ts), for `resources/subscribe`. */
  readonly listener: ListenerSlot;
}

const isBridgeId = (id: unknown): id is string => typeof id === 'string' && id.startsWith('b-');

/** docs/lines.md#lines-client-responses: only answers to `b-` ids reach the open bridge requests (`Session.answer`); everything else is dropped silently. */
function routeAnswer(session: Session, frame: ResponseFrame): void {
  if (!isBridgeId(frame.id)) return;
  session.answer(
    isErrorResponse(frame) ? { id: frame.id, error: frame.error } : { id: frame.id, result: frame.result },
  );
}

function handleNotification(ctx: DispatchContext, frame: NotificationFrame): void {
  const { session, deps } = ctx;
  if (frame.method === 'notifications/cancelled') {
    const id = frame.params?.['requestId'];
    if (typeof id === 'string' || typeof id === 'number') session.cancel(id);
  } else if (frame.method === 'notifications/initialized') {
    // docs/lifecycle.md#lifecycle-client-notifications: only after the initialize result was written; a second one is a no-op.
    session.markInitialized();
  } else if (frame.method !== 'notifications/roots/list_changed' && deps.logger.enabled('debug')) {
    deps.logger.log('bridge', 'debug', `ignored the notification ${frame.method} of the client`);
  }
}

function setLevel(session: Session, request: RequestFrame): Frame {
  const level = request.params?.['level'];
  if (!isLogLevel(level)) return bridgeErrorFrame(request.id, 'invalid_params');
  session.setLogLevel(level);
  return result(request.id, {});
}

/** The last forward context of a connection: one object for all its forwarded requests. */
interface ForwardCache {
  last: ForwardContext | undefined;
  /** The forwarding of `last`'s requests (createForward), made with it. */
  forward: ((request: RequestFrame) => Observable<Frame>) | undefined;
}

/** The forwarding of a session's requests, made again only when its client or upstream changed. */
function forwardOf(
  ctx: DispatchContext,
  cache: ForwardCache,
  client: ClientContext,
  upstream: UpstreamConnection,
): (request: RequestFrame) => Observable<Frame> {
  const last = cache.last;
  if (
    last !== undefined &&
    last.client === client &&
    last.upstream === upstream &&
    cache.forward !== undefined
  )
    return cache.forward;
  const logger = ctx.deps.logger;
  const made: ForwardContext = {
    session: ctx.session,
    client,
    upstream,
    limits: ctx.config.limits,
    logger,
    scheduler: ctx.scheduler,
    ...(ctx.deps.shapeResult === undefined ? {} : { shapeResult: ctx.deps.shapeResult }),
    shapeOptions: shapeOptions(upstream, logger),
    ...(ctx.deps.checks === undefined ? {} : { checks: ctx.deps.checks }),
  };
  cache.last = made;
  cache.forward = createForward(made);
  return cache.forward;
}

function handleRequest(ctx: DispatchContext, cache: ForwardCache, request: RequestFrame): Observable<Frame> {
  const { session } = ctx;
  const { id, method } = request;
  // Answered at any time, inline (docs/lifecycle.md#lifecycle-before-ready, docs/lifecycle.md#lifecycle-ready).
  if (method === 'ping') return of(result(id, {}));
  if (method === 'logging/setLevel') return of(setLevel(session, request));
  // The Copilot runtime probes with server/discover first and falls back to initialize (docs/lifecycle.md#lifecycle-before-ready).
  if (method === 'server/discover') return of(bridgeErrorFrame(id, 'method_not_found'));

  switch (session.phase) {
    case 'awaiting_initialize':
    case 'initializing':
      if (method === 'initialize') {
        return session.phase === 'awaiting_initialize'
          ? handleInitialize(ctx, request)
          : of(bridgeErrorFrame(id, 'already_initialized'));
      }
      if (isModernRequest(request.params)) return of(bridgeErrorFrame(id, 'method_not_found'));
      return of(bridgeErrorFrame(id, 'not_initialized'));
    case 'closing':
      return of(bridgeErrorFrame(id, 'upstream_exited'));
    case 'ready': {
      const { client, upstream } = session;
      if (method === 'initialize') return of(bridgeErrorFrame(id, 'already_initialized'));
      if (FORWARDED_METHODS.has(method) && client !== undefined && upstream !== undefined) {
        const forward = forwardOf(ctx, cache, client, upstream);
        return watchesList(session, method) ? watchedList(ctx, forward, request) : forward(request);
      }
      if (method === 'resources/subscribe' || method === 'resources/unsubscribe') {
        return handleSubscription(ctx.listener, session, request);
      }
      return of(bridgeErrorFrame(id, 'method_not_found'));
    }
  }
}

/**
 * A list the listen stream watches: fetched once its first acknowledgment came, or counted for
 * the catch-up of that acknowledgment (docs/notifications.md#notifications-first-list). A function
 * of its own: a closure inside handleRequest would make every request allocate its scope.
 */
function watchedList(
  ctx: DispatchContext,
  forward: (request: RequestFrame) => Observable<Frame>,
  request: RequestFrame,
): Observable<Frame> {
  const { session } = ctx;
  const forward$ = defer(() => {
    session.listFetched(listOfRequest(request.method));
    return forward(request);
  });
  return afterFirstAck(session, request, ctx.config.limits.firstAckWaitMs, ctx.scheduler, forward$);
}

export function createDispatcher(ctx: DispatchContext): (inbound: Inbound) => Observable<Frame> {
  const { session } = ctx;
  const cache: ForwardCache = { last: undefined, forward: undefined };
  return (inbound) => {
    if (inbound.kind === 'blank') return EMPTY;
    if (inbound.kind === 'bad') {
      // docs/lines.md#lines-bad-line: a broken answer to a bridge request resolves it instead of getting an error.
      if (isBridgeId(inbound.id)) {
        session.answer({ id: inbound.id, badLine: true });
        return EMPTY;
      }
      const detail = 'detail' in inbound ? inbound.detail : undefined;
      return of(bridgeErrorFrame(inbound.id, inbound.cause, detail));
    }
    const frame = inbound.frame;
    if (isResponse(frame)) {
      routeAnswer(session, frame);
      return EMPTY;
    }
    if (isRequest(frame)) return handleRequest(ctx, cache, frame);
    handleNotification(ctx, frame);
    return EMPTY;
  };
}
