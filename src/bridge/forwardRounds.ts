/**
 * The hand-over of a forwarded request to the round driver (docs/input-rounds.md#input-rounds), once a
 * result of `tools/call`, `prompts/get` or `resources/read` says `input_required`: that first
 * response opens the driver's round 1, and each later round is an upstream exchange with its own
 * time limit (docs/requests.md#requests-deadlines).
 */
import { Observable, of } from 'rxjs';
import type { Subscription, Subject } from 'rxjs';
import { driveInputRounds } from '../../operators/driveInputRounds.js';
import type { RoundOutput } from '../../operators/driveInputRounds.js';
import { buildUpstreamMeta, forwardParams } from '../codec/meta.js';
import { BridgeError } from '../protocol/bridgeError.js';
import { formatDuration } from '../protocol/errors.js';
import type { JsonObject, RequestFrame } from '../protocol/jsonrpc.js';
import type { BridgeLimits } from './config.js';
import type { ForwardContext } from './forwardShape.js';
import type { Abort } from './session.js';
import type { ExchangeEvent } from '../ports/upstream.js';

/** The time limit of one upstream round (docs/requests.md#requests-deadlines). */
export function roundLimitMs(method: string, round: number, limits: BridgeLimits): number {
  if (method === 'tools/call') return limits.callTimeoutMs;
  if (method === 'prompts/get' || method === 'resources/read') {
    return round === 1 ? limits.readTimeoutMs : limits.inputTimeoutMs;
  }
  return limits.listTimeoutMs;
}

/** The request the rounds belong to, as the driver and its exchanges need it. */
export interface RoundHost {
  readonly ctx: ForwardContext;
  readonly request: RequestFrame;
  /** The reason sent upstream with `notifications/cancelled` when an exchange is cut. */
  cancelReason: string;
  /** True while the rounds wait for the client's answers (the slow-request line, docs/requests.md#requests-slow-lines). */
  waitingForClient: boolean;
  /** One output of the rounds for the client; a throw fails this request alone. */
  emitGuarded(output: RoundOutput): void;
  /** Fails the request (the caller answers it with -32603). */
  fail(error: unknown): void;
  /** Ends the request after its last frame. */
  finish(): void;
}

/** The `_meta` of an upstream round, with the log level current at its start (docs/notifications.md#notifications-log-levels). */
export function roundMeta(host: RoundHost): JsonObject {
  const { client, session } = host.ctx;
  const level = session.logLevel;
  return buildUpstreamMeta(
    level === undefined
      ? { clientInfo: client.info, clientCapabilities: client.upstreamCapabilities }
      : { clientInfo: client.info, clientCapabilities: client.upstreamCapabilities, logLevel: level },
    host.request.params?.['_meta'],
    client.passesMeta,
  );
}

/**
 * Upstream round `round` (2 and later) with the driver's extras. docs/requests.md#requests-deadlines: progress never extends
 * the limit; at the limit the exchange fails with `timeout` and is unsubscribed, which sends
 * notifications/cancelled with the timeout reason.
 */
function roundExchange(host: RoundHost, round: number, extras: JsonObject): Observable<ExchangeEvent> {
  return new Observable<ExchangeEvent>((events) => {
    const { session, upstream, limits } = host.ctx;
    const method = host.request.method;
    host.waitingForClient = false;
    const limitMs = roundLimitMs(method, round, limits);
    const meta = roundMeta(host);
    const deadline = session.deadlines.add(limitMs, () => {
      host.cancelReason = 'the request timed out';
      events.error(
        new BridgeError('timeout', { detail: `${method}: no response in ${formatDuration(limitMs)}` }),
      );
    });
    const inner = upstream
      .request(
        method,
        { ...forwardParams(host.request.params), ...extras, _meta: meta },
        { cancelReason: () => host.cancelReason, trace: { round, clientId: host.request.id } },
      )
      .subscribe(events);
    return () => {
      deadline.cancel();
      inner.unsubscribe();
    };
  });
}

/** The detail of the failure of an input round without BridgeDeps.checks. */
export const NO_INPUT_CHECKS =
  'the bridge has no input checks (BridgeDeps.checks), thus it cannot send input requests to the client';

/**
 * Runs the round driver from the first response on; a stop reaches it through `abort$`. Returns
 * its subscription (the request's current work from now on). Without schema checks
 * (BridgeDeps.checks) it throws a BridgeError `internal`: the caller fails the request, and
 * nothing goes to the client.
 */
export function startRounds(host: RoundHost, first: ExchangeEvent, abort$: Subject<Abort>): Subscription {
  const { ctx, request } = host;
  const { session, client, limits, scheduler, checks } = ctx;
  const method = request.method;
  if (checks === undefined) {
    ctx.logger.log('bridge', 'err', `request ${String(request.id)} (${method}): ${NO_INPUT_CHECKS}`);
    throw new BridgeError('internal', { detail: NO_INPUT_CHECKS });
  }
  const rounds$ = driveInputRounds(
    {
      method,
      maxRounds: limits.maxRounds,
      maxInputRequests: limits.maxInputRequests,
      inputTimeoutMs: limits.inputTimeoutMs,
      ...(scheduler === undefined ? {} : { scheduler }),
    },
    {
      // Round 1 already happened: its response opens the driver's first round.
      exchange: (round, extras) => (round === 1 ? of(first) : roundExchange(host, round, { ...extras })),
      answers$: session.answers$,
      nextBridgeId: () => {
        host.waitingForClient = true;
        return session.nextBridgeId();
      },
      nextElicitationId: session.nextElicitationId,
      clientCapabilities: client.capabilities,
      clientRevision: session.revision,
      checks,
      abort$,
      log: (level, text) =>
        ctx.logger.log('bridge', level, `request ${String(request.id)} (${method}): ${text}`),
    },
  );
  return rounds$.subscribe({
    next: (output) => host.emitGuarded(output),
    error: (error: unknown) => host.fail(error),
    complete: () => host.finish(),
  });
}
