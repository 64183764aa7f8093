/**
 * Request headers of the Streamable HTTP transport, revision 2026-07-28
 * (docs/http-upstream.md#http-request-headers and docs/http-upstream.md#http-header-values). Pure functions: no I/O.
 */
import type { JsonObject, JsonValue } from '../../protocol/jsonrpc.js';
import { TRANSPORT_HEADER_NAMES } from '../../protocol/headerNames.js';
import { traceHeaders } from './traceHeaders.js';

/** One static header of the configuration (`--header`, `--header-env`). The value is a secret. */
export interface StaticHeader {
  readonly name: string;
  readonly value: string;
}

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';

/** Methods whose `Mcp-Name` header mirrors a parameter (docs/http-upstream.md#http-request-headers). */
const NAME_PARAMETER: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/**
 * True when the text can travel as a plain header value: visible ASCII and interior spaces only,
 * no leading or trailing space, and no look of the Base64 sentinel. TAB is legal inside a field
 * value (RFC 9110) but intermediaries handle it badly, so a TAB makes the value Base64 too; the
 * empty value is wrapped as well, because some stacks drop empty headers.
 */
export function isPlainHeaderText(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  if (text.startsWith(' ') || text.endsWith(' ')) return false;
  const lower = text.toLowerCase();
  return !(lower.startsWith(SENTINEL_PREFIX) && lower.endsWith(SENTINEL_SUFFIX));
}

/**
 * Encodes a value for `Mcp-Name` or `Mcp-Param-*` (docs/http-upstream.md#http-header-values): plain text as is,
 * anything else as `=?base64?<Base64 of the UTF-8 bytes>?=`.
 */
export function encodeHeaderValue(text: string): string {
  return isPlainHeaderText(text)
    ? text
    : `${SENTINEL_PREFIX}${Buffer.from(text, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/**
 * Decodes a header value made by {@link encodeHeaderValue} (used by test servers). Returns
 * undefined for a sentinel whose content is not Base64.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const encoded = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/**
 * The header text of an argument value: strings as is, integers in decimal, booleans as
 * `true`/`false`. Other values (null, objects, arrays, fractions, integers beyond ±(2^53−1))
 * have no header text: the header is left out and the server's argument check decides.
 */
export function headerText(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** The `Mcp-Name` value of a request, or undefined when the method has none. */
export function mcpName(method: string, params: JsonObject): string | undefined {
  const key = NAME_PARAMETER[method];
  if (key === undefined) return undefined;
  const value = params[key];
  return typeof value === 'string' ? encodeHeaderValue(value) : undefined;
}

/** What {@link requestHeaders} needs besides the frame. */
export interface RequestHeaderInput {
  readonly method: string;
  readonly params: JsonObject;
  readonly protocolVersion: string;
  /** `Mcp-Param-*` headers of a `tools/call` (already encoded), see toolHeaders.ts. */
  readonly paramHeaders?: ReadonlyArray<readonly [string, string]>;
  readonly staticHeaders: readonly StaticHeader[];
}

/**
 * The headers of one POST (docs/http-upstream.md#http-request-headers). Static headers come first; a static header
 * whose name the transport sets itself is dropped (the CLI refuses those names already). Never
 * `Mcp-Session-Id` nor `Last-Event-ID` (docs/http-upstream.md#http-no-sessions).
 */
export function requestHeaders(input: RequestHeaderInput): Record<string, string> {
  // Built without intermediate arrays or sets: this runs for every POST. Every name the
  // transport sets is `content-type`, `accept` (both in RESERVED) or starts with `mcp-`, so those
  // two tests drop any static header that a transport header would otherwise meet.
  const headers: Record<string, string> = {};
  // The request's own trace context (traceHeaders.ts) replaces a static header of the same name.
  const trace = traceHeaders(input.params);
  for (const { name: key, value } of input.staticHeaders) {
    const lower = key.toLowerCase();
    if (lower.startsWith('mcp-') || RESERVED.has(lower)) continue;
    if (trace.length > 0 && (lower === 'traceparent' || lower === 'tracestate')) continue;
    headers[key] = value;
  }
  for (const [key, value] of trace) headers[key] = value;
  headers['Content-Type'] = 'application/json';
  headers['Accept'] = 'application/json, text/event-stream';
  headers['MCP-Protocol-Version'] = input.protocolVersion;
  headers['Mcp-Method'] = input.method;
  const name = mcpName(input.method, input.params);
  if (name !== undefined) headers['Mcp-Name'] = name;
  if (input.paramHeaders !== undefined) for (const [key, value] of input.paramHeaders) headers[key] = value;
  return headers;
}

/** Names that only the transport sets (docs/http-upstream.md#http-headers). */
const RESERVED: ReadonlySet<string> = new Set([...TRANSPORT_HEADER_NAMES, 'last-event-id']);
