/**
 * The telemetry of one client connection (docs/observability.md): a span per client request, per
 * upstream round and per input request sent to the client, through the plain functions of
 * src/ports/telemetry.ts. Made only when the bridge has telemetry (`deps.telemetry`): without it
 * createBridge never calls this file, and a request costs nothing.
 *
 * Only names, ids, codes and kinds reach telemetry, never a value of a frame
 * (docs/observability.md#observability-secrets).
 */
import { defer, finalize, tap } from 'rxjs';
import type { Observable } from 'rxjs';
import { BridgeError } from '../protocol/bridgeError.js';
import type { Frame, JsonObject, RequestFrame, ResponseFrame } from '../protocol/jsonrpc.js';
import { isErrorResponse, isRequest, isResponse } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';
import type {
  EndHandle,
  RequestHandle,
  RequestInfo,
  RoundHandle,
  RoundOutcome,
  Telemetry,
  TraceContext,
} from '../ports/telemetry.js';
import type { ExchangeOptions } from '../ports/upstream.js';

/** The input requests of the 2026-07-28 rounds, by the method the client gets (docs/input-rounds.md). */
const INPUT_KINDS: Readonly<Record<string, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The names that may be a span's target: a tool's or a prompt's, never a URI. */
const TARGET_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get']);

export interface ConnectionTelemetry {
  /** The dispatch of the connection, with a span per client request and per input request. */
  readonly traced: (
    dispatch: (inbound: Inbound) => Observable<Frame>,
  ) => (inbound: Inbound) => Observable<Frame>;
  /** The span of one upstream round of a running client request (`options.trace`), if any. */
  readonly round: (options: ExchangeOptions | undefined) => RoundHandle | undefined;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : undefined;

function infoOf(request: RequestFrame, protocolVersion: string | undefined): RequestInfo {
  const params = request.params;
  const meta = params?.['_meta'];
  const metaObject = typeof meta === 'object' && meta !== null ? (meta as JsonObject) : undefined;
  const target = TARGET_METHODS.has(request.method) ? text(params?.['name']) : undefined;
  const traceparent = text(metaObject?.['traceparent']);
  const tracestate = text(metaObject?.['tracestate']);
  return {
    method: request.method,
    requestId: request.id,
    ...(target === undefined ? {} : { target }),
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
    ...(traceparent === undefined ? {} : { traceparent }),
    ...(tracestate === undefined ? {} : { tracestate }),
  };
}

/**
 * The error type of a final frame (the conventions' `error.type`): the JSON-RPC error code, or
 * `tool_error` for a tool result with `isError`; undefined for a success.
 */
function errorTypeOf(frame: ResponseFrame): string | undefined {
  if (isErrorResponse(frame)) return String(frame.error.code);
  const result = frame.result as JsonObject | undefined;
  return result?.['isError'] === true ? 'tool_error' : undefined;
}

/** How an upstream round ended, from its response: an error, the kinds of input asked, or neither. */
export function roundOutcome(frame: ResponseFrame): RoundOutcome {
  if (isErrorResponse(frame)) return { errorType: String(frame.error.code) };
  const result = frame.result as JsonObject | undefined;
  if (result?.['resultType'] !== 'input_required') return {};
  const asked = result['inputRequests'];
  const kinds = new Set<string>();
  if (typeof asked === 'object' && asked !== null) {
    for (const request of Object.values(asked as JsonObject)) {
      const method = (request as JsonObject | null)?.['method'];
      kinds.add((typeof method === 'string' ? INPUT_KINDS[method] : undefined) ?? 'other');
    }
  }
  return { inputKinds: [...kinds].sort() };
}

/** The error type of a failed exchange or request: the bridge's code, or the error's name. */
export function failureType(error: unknown): string {
  if (error instanceof BridgeError) return error.code;
  return error instanceof Error ? error.name : 'error';
}

/** The params of a round with the round's trace context in `_meta` (a copy: the caller's objects stay). */
export function withTraceContext(params: JsonObject, context: TraceContext): JsonObject {
  const meta = params['_meta'];
  return {
    ...params,
    _meta: {
      ...(typeof meta === 'object' && meta !== null ? meta : {}),
      traceparent: context.traceparent,
      ...(context.tracestate === undefined ? {} : { tracestate: context.tracestate }),
    },
  };
}

/** The telemetry of one connection; `revision` reads the client's protocol revision when asked. */
export function connectionTelemetry(
  telemetry: Telemetry,
  revision: () => string | undefined,
): ConnectionTelemetry {
  // The running client requests by id (the rounds find their parent here) and the open input
  // requests by bridge id; both lose their entries when the request ends.
  const requests = new Map<string | number, RequestHandle>();
  const inputs = new Map<string | number, EndHandle>();

  const traceRequest = (
    dispatch: (inbound: Inbound) => Observable<Frame>,
    inbound: Inbound,
    request: RequestFrame,
  ): Observable<Frame> =>
    defer(() => {
      const handle = telemetry.requestStarted(infoOf(request, revision()));
      const id = request.id;
      requests.set(id, handle);
      const asked: (string | number)[] = [];
      let ended = false;
      const end = (errorType: string | undefined): void => {
        if (ended) return;
        ended = true;
        if (requests.get(id) === handle) requests.delete(id);
        for (const inputId of asked) {
          inputs.get(inputId)?.end('cancelled');
          inputs.delete(inputId);
        }
        handle.end(errorType);
      };
      return dispatch(inbound).pipe(
        tap({
          next: (frame) => {
            if (isResponse(frame) && frame.id === id) end(errorTypeOf(frame));
            else if (isRequest(frame)) {
              const kind = INPUT_KINDS[frame.method];
              if (kind === undefined) return;
              asked.push(frame.id);
              inputs.set(frame.id, handle.inputRequested(kind));
            }
          },
          error: (error: unknown) => end(failureType(error)),
        }),
        // Ended without a response: cancelled by the client or cut by the end of the connection.
        finalize(() => end('cancelled')),
      );
    });

  return {
    traced: (dispatch) => (inbound) => {
      if (inbound.kind !== 'frame') return dispatch(inbound);
      const frame = inbound.frame;
      if (isRequest(frame)) return traceRequest(dispatch, inbound, frame);
      if (isResponse(frame) && frame.id !== null) {
        const input = inputs.get(frame.id);
        if (input !== undefined) {
          inputs.delete(frame.id);
          input.end(isErrorResponse(frame) ? String(frame.error.code) : undefined);
        }
      }
      return dispatch(inbound);
    },
    round: (options) => {
      const trace = options?.trace;
      const parent = trace?.clientId === undefined ? undefined : requests.get(trace.clientId);
      return parent?.roundStarted(trace?.round ?? 1);
    },
  };
}
