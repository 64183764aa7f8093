/**
 * The legacy path of embedded mode (docs/embedded.md#embedded-selection): the full 2025-11-25 front end
 * of the bridge, with the server of the same process as its upstream over the in-memory link.
 * The translation rules, the input rounds, progress, the listen stream, subscriptions and
 * logging are those of the bridge in front of a child process.
 */
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { NEVER, Subject, defer, map, of } from 'rxjs';
import type { OperatorFunction, SchedulerLike } from 'rxjs';
import { DEFAULT_LIMITS } from '../bridge/config.js';
import type { BridgeLimits } from '../bridge/config.js';
import { createBridge } from '../bridge/createBridge.js';
import type { InputSchemaChecks } from '../codec/input/checks.js';
import type { Logger } from '../ports/logger.js';
import { createRpcConnection } from '../bridge/rpcConnection.js';
import type { UpstreamConnection } from '../ports/upstream.js';
import { asFrame, isObject, isRequestId } from '../protocol/jsonrpc.js';
import type { Frame } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';
import { MAX_TIMER_MS } from '../ports/timerLimit.js';
import { linkServer } from './serverLink.js';

/**
 * The limits of embedded mode: those of the bridge without a time limit per request, because
 * the server runs in the same process; the longest timer (MAX_TIMER_MS) is no limit in practice (docs/embedded.md#embedded-selection "no per-request time limit; input wait keeps 1 h").
 */
export const EMBEDDED_LIMITS: BridgeLimits = Object.freeze({
  ...DEFAULT_LIMITS,
  discoverTimeoutMs: MAX_TIMER_MS,
  listTimeoutMs: MAX_TIMER_MS,
  readTimeoutMs: MAX_TIMER_MS,
  callTimeoutMs: MAX_TIMER_MS,
});

/** Settings of the legacy path of the embedded mode. */
export interface LegacyPathConfig {
  readonly factory: McpServerFactory;
  readonly limits: BridgeLimits;
  /** Line and depth limits of the client's lines (the in-memory link has no lines). */
  readonly maxLineBytes: number;
  readonly maxDepth: number;
  /** `serverInfo.name` and `.version` when the server gives none. */
  readonly name: string;
  readonly version: string;
  readonly logger: Logger;
  readonly scheduler?: SchedulerLike | undefined;
  /** The schema checks of input rounds (BridgeDeps.checks); absent, input rounds fail. */
  readonly checks?: InputSchemaChecks | undefined;
}

/**
 * The upstream of one `initialize` attempt: a connection of the server over the in-memory link.
 * The link is in memory, so nothing is serialised: the bridge's frames
 * reach the server as they are (the bridge builds a new frame per exchange and never reuses one),
 * and each message of the server is checked for the JSON-RPC shape, as a child's line would be
 * (docs/upstream.md#upstream-transports), without a JSON round trip. The line and depth limits of a pipe
 * do not apply: there is no line, and the server is code of this process. It never exits by
 * itself.
 */
export function createMemoryUpstream(config: LegacyPathConfig): UpstreamConnection {
  const { logger } = config;
  const toServer = new Subject<Frame>();
  const inbound$ = toServer.pipe(
    linkServer(config.factory, {
      onError: (error) => logger.log('embed', 'debug', error.message),
      direct: true,
    }),
    map(toInbound),
  );
  return createRpcConnection(
    {
      inbound$,
      send: (frame) => toServer.next(frame),
      exit$: NEVER,
      close: () => toServer.complete(),
    },
    logger,
  );
}

/** A message of the server as a line of a child would be classified: a frame, or a bad line. */
function toInbound(message: Frame): Inbound {
  const frame = asFrame(message);
  if (frame !== undefined) return { kind: 'frame', frame };
  const id: unknown = isObject(message) ? message['id'] : undefined;
  return { kind: 'bad', id: isRequestId(id) ? id : null, cause: 'invalid_request_shape' };
}

/**
 * The 2025-11-25 front end over the server of this process. The first frame is `initialize`
 * (the path is selected by it); every attempt of `initialize` gets a new connection.
 */
export function serveLegacy(config: LegacyPathConfig): OperatorFunction<Inbound, Frame> {
  return createBridge(
    { version: config.version, fallbackName: config.name, limits: config.limits },
    {
      connect: () => defer(() => of(createMemoryUpstream(config))),
      logger: config.logger,
      ...(config.scheduler === undefined ? {} : { scheduler: config.scheduler }),
      ...(config.checks === undefined ? {} : { checks: config.checks }),
    },
  );
}
