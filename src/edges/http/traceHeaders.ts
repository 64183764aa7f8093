/**
 * The W3C trace context of an upstream request as HTTP headers (docs/observability.md#observability-spans):
 * the `traceparent`/`tracestate` of the request's `_meta` (the bridge's round span when tracing is
 * on, else the client's own) also go as headers, so an HTTP server or proxy that reads only
 * headers joins the same trace. Pure functions: no I/O.
 */
import type { TraceContext } from '../../ports/telemetry.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';

/** version-traceid-parentid-flags, lower-case hex (W3C Trace Context, section 3.2). */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** W3C Trace Context: a tracestate of at most 32 members of at most 256 characters fits in 512 here. */
const MAX_TRACESTATE = 512;

/** Printable ASCII and spaces only: anything else is no header value (and no trace state). */
const TRACESTATE = /^[\x20-\x7e]*$/;

/**
 * The `traceparent` and `tracestate` headers of `params._meta`, or an empty list. A malformed
 * `traceparent` gives no header at all; a `tracestate` goes only with a valid `traceparent`.
 */
export function traceHeaders(params: JsonObject): ReadonlyArray<readonly [string, string]> {
  const meta = params['_meta'];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return [];
  const traceparent = meta['traceparent'];
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return [];
  const tracestate = meta['tracestate'];
  return typeof tracestate === 'string' &&
    tracestate.length > 0 &&
    tracestate.length <= MAX_TRACESTATE &&
    TRACESTATE.test(tracestate)
    ? [
        ['traceparent', traceparent],
        ['tracestate', tracestate],
      ]
    : [['traceparent', traceparent]];
}

/** The trace context of `params._meta` as traceHeaders gives it (only when well-formed), or undefined. */
export function traceContextOf(params: JsonObject): TraceContext | undefined {
  const [traceparent, tracestate] = traceHeaders(params);
  if (traceparent === undefined) return undefined;
  return tracestate === undefined
    ? { traceparent: traceparent[1] }
    : { traceparent: traceparent[1], tracestate: tracestate[1] };
}
