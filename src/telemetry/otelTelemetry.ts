/**
 * The Telemetry port (src/ports/telemetry.ts) on OpenTelemetry: the span names and attributes of
 * the semantic conventions for MCP, and the `mcp.bridge.*` ones for what only a bridge sees
 * (docs/observability.md#observability-spans). The OpenTelemetry modules are given, never
 * imported here: src/telemetry/start.ts loads them with `import()` only when tracing is on.
 */
import { createHash } from 'node:crypto';
import type * as Api from '@opentelemetry/api';
import type {
  EndHandle,
  RequestHandle,
  RequestInfo,
  RoundHandle,
  RoundOutcome,
  SignInOutcome,
  SignInStepHandle,
  SignInStepInfo,
  SignInTelemetry,
  Telemetry,
  TraceContext,
} from '../ports/telemetry.js';

/** The connection a Telemetry is made for (`network.transport`, `mcp.session.id`). */
export interface ConnectionInfo {
  readonly transport: 'pipe' | 'tcp';
  /** The HTTP session id (`Mcp-Session-Id`); only its sessionTag reaches a span. */
  readonly sessionId?: string;
}

/**
 * The `mcp.session.id` of a session: the first 16 hex digits of the SHA-256 of its id
 * (docs/observability.md#observability-session). The id itself is a capability (whoever holds it
 * can use the session, docs/serve.md#serve-sessions), so it never leaves the process; 192 random
 * bits cannot be found again from 64 bits of their hash, which still tell the sessions apart.
 */
export function sessionTag(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex').slice(0, 16);
}

/** What the spans need of OpenTelemetry: its API module, a tracer and the W3C propagator. */
export interface OtelParts {
  readonly api: typeof Api;
  readonly tracer: Api.Tracer;
  readonly propagator: Api.TextMapPropagator;
}

/** The method of each input kind of an input request span (docs/observability.md#observability-spans). */
const INPUT_METHODS: Readonly<Record<string, string>> = {
  elicitation: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
};

/** The attributes of the conventions for a request of `info` (gen-ai/mcp.md). */
function requestAttributes(info: RequestInfo, connection: Api.Attributes): Api.Attributes {
  const attributes: Api.Attributes = {
    'mcp.method.name': info.method,
    'jsonrpc.request.id': String(info.requestId),
    ...connection,
  };
  if (info.target !== undefined) {
    if (info.method === 'tools/call') {
      attributes['gen_ai.tool.name'] = info.target;
      attributes['gen_ai.operation.name'] = 'execute_tool';
    } else attributes['gen_ai.prompt.name'] = info.target;
  }
  if (info.protocolVersion !== undefined) attributes['mcp.protocol.version'] = info.protocolVersion;
  return attributes;
}

/** Ends `span` once, with `error.type` and an error status when `errorType` is given. */
function ender(api: typeof Api, span: Api.Span): (errorType?: string) => void {
  let ended = false;
  return (errorType) => {
    if (ended) return;
    ended = true;
    if (errorType !== undefined) {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: api.SpanStatusCode.ERROR });
    }
    span.end();
  };
}

/** The W3C trace context of `context`, as it goes upstream in `_meta`. */
function contextOf(parts: OtelParts, context: Api.Context): TraceContext | undefined {
  const carrier: Record<string, string> = {};
  parts.propagator.inject(context, carrier, parts.api.defaultTextMapSetter);
  const traceparent = carrier['traceparent'];
  if (traceparent === undefined) return undefined;
  const tracestate = carrier['tracestate'];
  return tracestate === undefined ? { traceparent } : { traceparent, tracestate };
}

/** The Telemetry of one connection on OpenTelemetry. */
export function otelTelemetry(parts: OtelParts, connection: ConnectionInfo): Telemetry {
  const { api, tracer, propagator } = parts;
  // The attributes of the connection, the same for each of its requests.
  const connectionAttributes: Api.Attributes = {
    'network.transport': connection.transport,
    ...(connection.sessionId === undefined ? {} : { 'mcp.session.id': sessionTag(connection.sessionId) }),
  };
  return {
    requestStarted(info: RequestInfo): RequestHandle {
      const carrier: Record<string, string> = {};
      if (info.traceparent !== undefined) carrier['traceparent'] = info.traceparent;
      if (info.tracestate !== undefined) carrier['tracestate'] = info.tracestate;
      // The client's context is the parent; a malformed traceparent is ignored by the propagator.
      const parent = propagator.extract(api.ROOT_CONTEXT, carrier, api.defaultTextMapGetter);
      const name = info.target === undefined ? info.method : `${info.method} ${info.target}`;
      const span = tracer.startSpan(
        name,
        { kind: api.SpanKind.SERVER, attributes: requestAttributes(info, connectionAttributes) },
        parent,
      );
      const inside = api.trace.setSpan(parent, span);
      return {
        end: ender(api, span),
        roundStarted(round: number): RoundHandle {
          const attributes: Api.Attributes = { 'mcp.method.name': info.method, 'mcp.bridge.round': round };
          if (info.method === 'tools/call' && info.target !== undefined)
            attributes['gen_ai.tool.name'] = info.target;
          const child = tracer.startSpan(name, { kind: api.SpanKind.CLIENT, attributes }, inside);
          const end = ender(api, child);
          return {
            context: contextOf(parts, api.trace.setSpan(inside, child)),
            end(outcome: RoundOutcome) {
              if (outcome.inputKinds !== undefined) {
                child.setAttribute('mcp.bridge.round.result', 'input_required');
                child.setAttribute('mcp.bridge.round.input_kinds', [...outcome.inputKinds]);
              }
              end(outcome.errorType);
            },
          };
        },
        inputRequested(kind: string): EndHandle {
          const method = INPUT_METHODS[kind] ?? kind;
          const child = tracer.startSpan(
            method,
            {
              kind: api.SpanKind.CLIENT,
              attributes: { 'mcp.method.name': method, 'mcp.bridge.input.kind': kind },
            },
            inside,
          );
          return { end: ender(api, child) };
        },
      };
    },
  };
}

/** The attributes of a sign-in step: the grant, and the host and port of the authorization server at most. */
function stepAttributes(info: SignInStepInfo): Api.Attributes {
  const attributes: Api.Attributes = { 'mcp.bridge.auth.grant': info.grant };
  const server = info.server === undefined ? undefined : URL.parse(info.server);
  if (server !== null && server !== undefined) {
    attributes['server.address'] = server.hostname;
    attributes['server.port'] = Number(server.port || (server.protocol === 'http:' ? 80 : 443));
  }
  return attributes;
}

/**
 * The sign-in spans on OpenTelemetry (docs/observability.md#observability-sign-in): a sign-in, a
 * refresh and a wait for the token lock, each a child of the upstream request that needed it.
 */
export function otelSignInTelemetry(parts: OtelParts): SignInTelemetry {
  const { api, tracer, propagator } = parts;
  const parentOf = (trace: TraceContext | undefined): Api.Context => {
    if (trace === undefined) return api.ROOT_CONTEXT;
    const carrier: Record<string, string> = { traceparent: trace.traceparent };
    if (trace.tracestate !== undefined) carrier['tracestate'] = trace.tracestate;
    return propagator.extract(api.ROOT_CONTEXT, carrier, api.defaultTextMapGetter);
  };
  const step =
    (name: string, kind: Api.SpanKind) =>
    (info: SignInStepInfo): SignInStepHandle => {
      const span = tracer.startSpan(name, { kind, attributes: stepAttributes(info) }, parentOf(info.parent));
      const end = ender(api, span);
      let ended = false;
      return {
        end(outcome: SignInOutcome, errorType?: string) {
          if (ended) return;
          ended = true;
          span.setAttribute('mcp.bridge.auth.outcome', outcome);
          end(outcome === 'failed' ? (errorType ?? 'error') : undefined);
        },
      };
    };
  return {
    signInStarted: step('mcp.bridge.sign_in', api.SpanKind.INTERNAL),
    refreshStarted: step('mcp.bridge.refresh', api.SpanKind.CLIENT),
    lockWaitStarted(parent) {
      const span = tracer.startSpan(
        'mcp.bridge.token_lock.wait',
        { kind: api.SpanKind.INTERNAL },
        parentOf(parent),
      );
      return { end: ender(api, span) };
    },
  };
}
