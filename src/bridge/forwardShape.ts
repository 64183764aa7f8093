/**
 * The frames of one forwarded request for the client: progress with the client's token
 * (docs/requests.md#requests-progress, kept by forwardRequest), the error of a failed round, the shaped result (docs/results.md#results-shape–docs/results.md#results-output-schema).
 */
import type { InputSchemaChecks } from '../codec/input/checks.js';
import type { RoundOutput } from '../../operators/driveInputRounds.js';
import { downgradeFrame, downgradeResult } from '../codec/downgrade.js';
import { classifyResult, shapeResult } from '../codec/results.js';
import type { ShapeOptions } from '../codec/results.js';
import { toClientError } from '../codec/upstreamError.js';
import { bridgeErrorFrame } from '../protocol/errors.js';
import type { Frame, JsonObject, RequestFrame } from '../protocol/jsonrpc.js';
import { errorResponse, result } from '../protocol/jsonrpc.js';
import { carryRawResult } from '../protocol/rawResult.js';
import type { BridgeLimits } from './config.js';
import type { Logger } from '../ports/logger.js';
import type { ClientContext, Session } from './session.js';
import type { UpstreamConnection } from '../ports/upstream.js';
import type { SchedulerLike } from 'rxjs';

export interface ForwardContext {
  readonly session: Session;
  readonly client: ClientContext;
  readonly upstream: UpstreamConnection;
  readonly limits: BridgeLimits;
  readonly logger: Logger;
  readonly scheduler: SchedulerLike | undefined;
  /** The result-shaping codec step (BridgeDeps.shapeResult). */
  readonly shapeResult?: typeof shapeResult;
  /**
   * The options of the shaping step, made once with the context (see shapeOptions): the same
   * object for every request of the connection, so nothing is built per result.
   */
  readonly shapeOptions?: ShapeOptions;
  /** The schema checks of input rounds (BridgeDeps.checks); absent, input rounds fail. */
  readonly checks?: InputSchemaChecks;
}

/** The options of the shaping step for the requests of one context. */
export function shapeOptions(upstream: UpstreamConnection, logger: Logger): ShapeOptions {
  return {
    remote: upstream.remote,
    onItemsFixed: (tool, pointer) =>
      logger.log(
        'bridge',
        'info',
        `tool '${tool}': added an items schema at '${pointer}' of the input schema`,
      ),
  };
}

/** The frame of one output of a forwarded request for the client, if any. */
export function outputFrame(
  ctx: ForwardContext,
  request: RequestFrame,
  output: RoundOutput,
): Frame | undefined {
  switch (output.type) {
    case 'toClient':
    case 'progress':
      // The bridge's requests and notifications of the rounds, and progress with the client's
      // token (forwardRequest rule 2), for the client's revision.
      return downgradeFrame(output.frame, ctx.session.revision);
    case 'error':
      return errorResponse(request.id, toClientError(output.error, request.method));
    case 'result':
      return shape(ctx, request, output.result);
  }
}

function shape(ctx: ForwardContext, request: RequestFrame, raw: JsonObject): Frame {
  const classified = classifyResult(request.method, raw);
  if (classified.kind === 'invalid') {
    ctx.logger.log(
      'bridge',
      'warn',
      `request ${String(request.id)} (${request.method}): the upstream result is not valid: ${classified.detail}`,
    );
    return bridgeErrorFrame(request.id, 'invalid_response');
  }
  if (classified.kind === 'input_required') return bridgeErrorFrame(request.id, 'invalid_response');
  const shaped = (ctx.shapeResult ?? shapeResult)(
    request.method,
    classified.result,
    ctx.shapeOptions ?? shapeOptions(ctx.upstream, ctx.logger),
  );
  if ('invalid' in shaped && typeof shaped.invalid === 'string') {
    ctx.logger.log(
      'bridge',
      'warn',
      `request ${String(request.id)} (${request.method}): the upstream result is not valid: ${shaped.invalid}`,
    );
    return bridgeErrorFrame(request.id, 'invalid_response');
  }
  // Then for the client's revision: no copy for 2025-11-25 (docs/revisions.md).
  const forClient = downgradeResult(request.method, shaped, ctx.session.revision);
  // The shaped result carries the upstream's bytes of its unchanged members.
  return result(request.id, carryRawResult(classified.result, forClient));
}
