/**
 * `initialize` (docs/lifecycle.md#lifecycle-states, docs/lifecycle.md#lifecycle-initialize): start the upstream, ask `server/discover`,
 * answer with a result of the revision the client asked for when the bridge speaks it, else of
 * 2025-11-25 (docs/revisions.md). A failed attempt leaves the connection ready for a retry.
 */
import { catchError, defer, filter, finalize, map, merge, mergeMap, of, take, takeUntil, tap } from 'rxjs';
import type { SchedulerLike, Observable } from 'rxjs';
import { withDeadline } from '../../operators/withDeadline.js';
import { toUpstreamClientCapabilities } from '../codec/capabilities.js';
import { downgradeInitializeResult } from '../codec/downgrade.js';
import { buildInitializeResult } from '../codec/initializeResult.js';
import { declaredLists } from '../codec/listen.js';
import { upstreamClientInfo } from '../codec/clientInfo.js';
import { PROTOCOL_VERSION, buildUpstreamMeta, metaRule } from '../codec/meta.js';
import { REFERENCE_PASSTHROUGH } from '../protocol/metaPassthrough.js';
import type { MetaPassthrough } from '../protocol/metaPassthrough.js';
import { classifyResult } from '../codec/results.js';
import { offeredVersions } from '../codec/versionRefusal.js';
import { negotiateRevision } from '../codec/revisions.js';
import type { ClientRevision } from '../codec/revisions.js';
import { BridgeError, isBridgeError } from '../protocol/bridgeError.js';
import { failureText } from '../ports/causeOf.js';
import {
  INTERNAL_ERROR,
  UNSUPPORTED_PROTOCOL_VERSION,
  URL_ELICITATION_REQUIRED,
  bridgeError,
  formatDuration,
} from '../protocol/errors.js';
import type { ErrorObject, Frame, JsonObject, RequestFrame, ResponseFrame } from '../protocol/jsonrpc.js';
import { errorResponse, isErrorResponse, isObject, result } from '../protocol/jsonrpc.js';
import { frozenJson } from '../codec/requestText.js';
import type { BridgeConfig, BridgeDeps } from './config.js';
import type { Logger } from '../ports/logger.js';
import type { ClientContext, Initialized, Session } from './session.js';
import type { UpstreamConnection } from '../ports/upstream.js';
import { withVersionRetry } from './versionRetry.js';

/**
 * The client's identity and capabilities from the `initialize` params, as `passthrough` lets them
 * travel to this upstream (src/codec/clientInfo.ts, capabilities.ts); lenient on shape. The
 * capabilities are the declared ones, also when the client's revision predates a member: what a
 * client declares, it gets (docs/revisions.md#revisions-declared).
 */
function clientContext(
  params: JsonObject | undefined,
  passthrough: MetaPassthrough,
  remote: boolean,
): ClientContext {
  const capabilities = isObject(params?.['capabilities']) ? params['capabilities'] : {};
  const info = upstreamClientInfo(params?.['clientInfo'], passthrough.fullClientInfo, remote);
  // Deep-frozen: they go in the _meta of every upstream request, whose text is then made once
  // for them (src/codec/requestText.ts).
  return {
    info: frozenJson(info),
    capabilities,
    upstreamCapabilities: frozenJson(
      toUpstreamClientCapabilities(capabilities, passthrough.rootsListChanged),
    ),
    passesMeta: metaRule(passthrough),
  };
}

/** The error of a failed discover (docs/lifecycle.md#lifecycle-initialize). */
function discoverError(error: unknown, limitMs: number): ErrorObject {
  if (isBridgeError(error)) {
    if (error.code === 'spawn_failed' || error.code === 'connect_failed')
      return bridgeError(error.code, error.detail);
    if (error.code === 'timeout')
      return bridgeError('discover_failed', `no response in ${formatDuration(limitMs)}`);
    const status = error.httpStatus === undefined ? '' : `, HTTP status ${error.httpStatus}`;
    const detail =
      error.code === 'closed' || error.code === 'upstream_exited' || error.code === 'invalid_response'
        ? `server/discover${status}`
        : `${error.detail ?? 'server/discover'}${status}`;
    return bridgeError(error.code === 'upstream_exited' ? 'closed' : error.code, detail);
  }
  return bridgeError('internal');
}

/**
 * A `-32022` that does not offer 2026-07-28 (or a second one after the retry): the message names
 * the versions the server offers, never the URL (docs/lifecycle.md#lifecycle-initialize step 5, docs/errors.md#errors-upstream-codes).
 */
function unsupportedVersion(offered: readonly string[], logger: Logger): ErrorObject {
  const named = offered.length === 0 ? 'none that the bridge can read' : offered.join(', ');
  logger.log(
    'bridge',
    'err',
    `server/discover failed: the upstream server does not support the protocol version ${PROTOCOL_VERSION}; it supports ${named}`,
  );
  const base = bridgeError(
    'discover_failed',
    `server/discover: unsupported protocol version; the upstream server supports ${named}`,
    UNSUPPORTED_PROTOCOL_VERSION,
  );
  return {
    ...base,
    message:
      `The upstream server does not support the protocol version ${PROTOCOL_VERSION} of the bridge; ` +
      `it supports ${named}. See the Output channel of the server.`,
  };
}

export interface InitializeContext {
  readonly session: Session;
  readonly config: BridgeConfig;
  readonly deps: BridgeDeps;
  readonly scheduler: SchedulerLike | undefined;
}

/**
 * What one `server/discover` response decides: the frame for the client and, when it
 * succeeded, what the session becomes ready with. Made without touching the session; the
 * caller applies it (`Session.becomeReady` or `Session.initializeFailed`).
 */
export interface InitializeOutcome {
  readonly frame: Frame;
  readonly ready?: Initialized;
}

/** The settings of one `initialize` that the outcome of its discover depends on. */
interface Attempt {
  readonly request: RequestFrame;
  readonly config: BridgeConfig;
  readonly logger: Logger;
  readonly client: ClientContext;
  readonly revision: ClientRevision;
  readonly connection: UpstreamConnection;
}

/**
 * The outcome of a discover response (docs/lifecycle.md#lifecycle-initialize): an unsupported
 * version or an upstream error fails the attempt; a complete result makes the initialize result
 * of the client's revision. Throws `invalid_response` for a result that is not one.
 */
function discoverOutcome(attempt: Attempt, frame: ResponseFrame): InitializeOutcome {
  const { request, config, logger, connection, revision } = attempt;
  if (isErrorResponse(frame)) {
    const offered = offeredVersions(frame.error);
    if (offered !== undefined)
      return { frame: errorResponse(request.id, unsupportedVersion(offered, logger)) };
    // The upstream code is kept (except -32042) with our message, its message as detail.
    const code = frame.error.code === URL_ELICITATION_REQUIRED ? INTERNAL_ERROR : frame.error.code;
    logger.log(
      'bridge',
      'err',
      `server/discover failed: the upstream server answered with the error ${frame.error.code}`,
    );
    return { frame: errorResponse(request.id, bridgeError('discover_failed', frame.error.message, code)) };
  }
  const classified = classifyResult('server/discover', frame.result);
  if (classified.kind !== 'complete' || !isObject(classified.result['capabilities'] ?? {})) {
    throw new BridgeError('invalid_response', { detail: 'server/discover' });
  }
  const initializeResult = downgradeInitializeResult(
    buildInitializeResult(classified.result, {
      fallbackName: config.fallbackName,
      bridgeVersion: config.version,
      remote: connection.remote,
    }),
    revision,
  );
  const capabilities = isObject(initializeResult['capabilities']) ? initializeResult['capabilities'] : {};
  return {
    frame: result(request.id, initializeResult),
    ready: { client: attempt.client, revision, upstream: connection, declared: declaredLists(capabilities) },
  };
}

export function handleInitialize(ctx: InitializeContext, request: RequestFrame): Observable<Frame> {
  const { session, config, deps } = ctx;
  const logger = deps.logger;
  const limitMs = config.limits.discoverTimeoutMs;
  return defer(() => {
    session.beginInitialize();
    const passthrough = config.metaPassthrough ?? REFERENCE_PASSTHROUGH;
    const revision = negotiateRevision(request.params?.['protocolVersion']);
    let upstream: UpstreamConnection | undefined;
    let settled = false;
    const reset = (): void => {
      // docs/lifecycle.md#lifecycle-states: a failed or cancelled initialize returns to awaiting_initialize; the client may retry.
      if (settled) return;
      settled = true;
      session.initializeFailed();
      upstream?.close();
    };
    /** The outcome of a discover response, applied before its frame goes to the client. */
    const apply = (outcome: InitializeOutcome): void => {
      if (outcome.ready === undefined) {
        reset();
        return;
      }
      settled = true;
      session.becomeReady(outcome.ready);
    };
    const stop$ = merge(session.cancels$.pipe(filter((id) => id === request.id)), session.aborted$).pipe(
      take(1),
    );

    const discover$ = (connection: UpstreamConnection): Observable<Frame> => {
      // Made per attempt: which icons of the client may travel depends on the upstream (remote).
      const client = clientContext(request.params, passthrough, connection.remote);
      const attempt: Attempt = { request, config, logger, client, revision, connection };
      return connection
        .request('server/discover', {
          _meta: buildUpstreamMeta(
            {
              clientInfo: client.info,
              clientCapabilities: client.upstreamCapabilities,
              ...(session.logLevel === undefined ? {} : { logLevel: session.logLevel }),
            },
            undefined,
          ),
        })
        .pipe(
          withDeadline({
            limitMs,
            ...(ctx.scheduler === undefined ? {} : { scheduler: ctx.scheduler }),
            error: () => new BridgeError('timeout'),
          }),
          filter((event) => event.type === 'response'),
          map((event) => discoverOutcome(attempt, event.frame)),
          tap(apply),
          map((outcome) => outcome.frame),
        );
    };

    const attempt$ = deps.connect().pipe(
      take(1),
      // Every request of the session gets the -32022 retry, discover included (versionRetry.ts).
      map((connection) => withVersionRetry(connection, logger)),
      tap((connection) => (upstream = connection)),
      mergeMap(discover$),
      catchError((error: unknown) => {
        // The detail says why (a sign-in's HTTP status and error code, a certificate problem);
        // details never hold the URL, a header value or frame contents (src/ports/upstream.ts).
        if (!isBridgeError(error) || error.code !== 'spawn_failed')
          logger.log('bridge', 'err', `server/discover failed: ${failureText(error)}`);
        reset();
        return of(errorResponse(request.id, discoverError(error, limitMs)));
      }),
    );
    // A cancelled initialize gets no response (docs/lifecycle.md#lifecycle-states): the attempt stops before the reset closes
    // the upstream, so the failure of the closed upstream never reaches the client.
    return attempt$.pipe(takeUntil(stop$), finalize(reset));
  });
}
