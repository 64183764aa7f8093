/**
 * The forwarded client requests of one connection (docs/lifecycle.md#lifecycle-ready,
 * docs/requests.md#requests-meta, docs/requests.md#requests-deadlines,
 * docs/results.md#results-shape, docs/input-rounds.md#input-rounds): the public operator
 * `forwardRequest` with the session's side of it, made once per forward context. The frames for
 * the client are forwardShape.ts.
 */
import type { Observable } from 'rxjs';
import { forwardRequest } from '../../operators/forwardRequest.js';
import { buildUpstreamMeta } from '../codec/meta.js';
import type { Frame, JsonObject, RequestFrame } from '../protocol/jsonrpc.js';
import { outputFrame } from './forwardShape.js';
import type { ForwardContext } from './forwardShape.js';

export type { ForwardContext } from './forwardShape.js';
export { shapeOptions } from './forwardShape.js';

export const FORWARDED_METHODS: ReadonlySet<string> = new Set([
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
]);

/** The `_meta` of an upstream round, with the log level current at its start (docs/notifications.md#notifications-log-levels). */
function roundMeta(ctx: ForwardContext, request: RequestFrame): JsonObject {
  const { client, session } = ctx;
  const level = session.logLevel;
  return buildUpstreamMeta(
    level === undefined
      ? { clientInfo: client.info, clientCapabilities: client.upstreamCapabilities }
      : { clientInfo: client.info, clientCapabilities: client.upstreamCapabilities, logLevel: level },
    request.params?.['_meta'],
    client.passesMeta,
  );
}

/**
 * The forwarding of one context's requests: the time limits and the input rounds on the
 * session's lane scheduler, the stops through the session's list of running requests (no
 * subscription per request), the frames shaped for the client's revision.
 */
export function createForward(ctx: ForwardContext): (request: RequestFrame) => Observable<Frame> {
  const { session, client, upstream, limits, logger, checks } = ctx;
  return forwardRequest<Frame>(
    { ...limits, scheduler: session.lanes },
    {
      upstream,
      meta: (request) => roundMeta(ctx, request),
      toClient: (request, output) => outputFrame(ctx, request, output),
      track: session.track,
      untrack: session.untrack,
      rounds: {
        answers$: session.answers$,
        clientCapabilities: client.capabilities,
        // Decided with `client` by the initialize that made the session ready: a context is made
        // again for a new client (dispatch.ts). A value, not a getter (sessionLifecycle.ts says why).
        clientRevision: session.revision,
        nextBridgeId: session.nextBridgeId,
        nextElicitationId: session.nextElicitationId,
        ...(checks === undefined ? {} : { checks }),
      },
      log: (level, text) => logger.log('bridge', level, text),
    },
  );
}
