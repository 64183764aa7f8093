/**
 * The pure rules of the HTTP front end (docs/serve.md#serve-rules): which Host and Origin a
 * request may carry, what its Accept and MCP-Protocol-Version headers must say, and the HTTP
 * status and JSON-RPC error of each refusal (docs/serve.md#serve-errors). No I/O.
 */
import { CLIENT_REVISIONS } from '../../codec/revisions.js';
import type { JsonObject, RequestId } from '../../protocol/jsonrpc.js';

/** Why the front end refuses an HTTP request before any session sees it. */
export type RefusalCause =
  | 'forbidden_host'
  | 'duplicate_host'
  | 'too_many_token_failures'
  | 'forbidden_origin'
  | 'unauthorized'
  | 'body_timeout'
  | 'not_acceptable'
  | 'unsupported_media_type'
  | 'method_not_allowed'
  | 'not_found'
  | 'session_required'
  | 'session_not_found'
  | 'bad_protocol_version'
  | 'body_too_large'
  | 'too_many_sessions'
  | 'batch_not_supported';

/** Status and JSON-RPC error of each refusal; messages name no header value. */
export const REFUSALS: Readonly<
  Record<RefusalCause, readonly [status: number, code: number, message: string]>
> = {
  forbidden_host: [403, -32000, 'The Host header does not name this server.'],
  duplicate_host: [400, -32000, 'The request must carry exactly one Host header.'],
  too_many_token_failures: [429, -32000, 'Too many wrong bearer tokens came from this address; retry later.'],
  forbidden_origin: [403, -32000, 'The Origin of the request is not allowed.'],
  unauthorized: [401, -32000, 'The request lacks the bearer token of this server.'],
  not_acceptable: [406, -32000, 'The Accept header must allow application/json and text/event-stream.'],
  unsupported_media_type: [415, -32000, 'The body must be application/json.'],
  method_not_allowed: [405, -32000, 'The endpoint serves POST, GET and DELETE.'],
  not_found: [404, -32000, 'No MCP endpoint at this path.'],
  session_required: [400, -32000, 'The Mcp-Session-Id header is required after initialize.'],
  session_not_found: [404, -32001, 'The session is not known: it ended or never existed.'],
  bad_protocol_version: [400, -32000, 'The MCP-Protocol-Version header names an unsupported revision.'],
  body_too_large: [413, -32600, 'The body is larger than the limit of the server.'],
  body_timeout: [408, -32000, 'The request did not arrive within the time limit of the server.'],
  too_many_sessions: [503, -32000, 'The server has as many sessions as its limit.'],
  batch_not_supported: [400, -32600, 'A batch must not hold an initialize request.'],
};

/** The JSON-RPC error body of a refusal. */
export function refusalBody(cause: RefusalCause, id: RequestId | null = null): JsonObject {
  const [, code, message] = REFUSALS[cause];
  return { jsonrpc: '2.0', id, error: { code, message, data: { cause } } };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True for a loopback address or name to bind or to be reached at. */
export const isLoopback = (host: string): boolean =>
  LOOPBACK_HOSTS.has(host) || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

/** Splits `name[:port]` (with `[v6][:port]`); `port` is '' when the authority names none. */
function hostPort(authority: string): { readonly host: string; readonly port: string } | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(authority);
  return match === null ? undefined : { host: match[1]!.toLowerCase(), port: match[2] ?? '' };
}

/**
 * DNS rebinding (docs/serve.md#serve-security): the Host must be a loopback name or address with
 * the bound port, or the listen address itself. A server bound to all addresses takes any name
 * with any port or none: its bearer token guards it, and a load balancer in front of it forwards
 * the name and port the clients used.
 */
export function hostAllowed(host: string | undefined, port: number, listenHost: string): boolean {
  if (host === undefined) return false;
  const parsed = hostPort(host);
  if (parsed === undefined) return false;
  if (listenHost === '0.0.0.0' || listenHost === '::') return true;
  if (parsed.port !== String(port)) return false;
  if (isLoopback(parsed.host)) return true;
  const bound = listenHost.includes(':') ? `[${listenHost.toLowerCase()}]` : listenHost.toLowerCase();
  return parsed.host === bound;
}

/**
 * docs/serve.md#serve-security: no Origin (a client that is not a browser) passes; a browser's
 * Origin must be this server's own loopback origin or one of `--allow-origin`.
 */
export function originAllowed(origin: string | undefined, port: number, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  if (allowed.includes(origin)) return true;
  const match = /^http:\/\/([^/]+)$/.exec(origin);
  if (match === null) return false;
  const parsed = hostPort(match[1]!);
  return parsed !== undefined && parsed.port === String(port) && isLoopback(parsed.host);
}

/** The media ranges of an Accept header, without parameters, lower case. */
const mediaRanges = (accept: string | undefined): string[] =>
  (accept ?? '').split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());

const allows = (ranges: readonly string[], type: string): boolean =>
  ranges.includes(type) || ranges.includes(`${type.split('/')[0]!}/*`) || ranges.includes('*/*');

/** A POST must accept both a JSON response and an event stream (Streamable HTTP, "Sending Messages"). */
export function acceptsPost(accept: string | undefined): boolean {
  const ranges = mediaRanges(accept);
  return allows(ranges, 'application/json') && allows(ranges, 'text/event-stream');
}

/** A GET must accept an event stream (Streamable HTTP, "Listening for Messages"). */
export const acceptsEventStream = (accept: string | undefined): boolean =>
  allows(mediaRanges(accept), 'text/event-stream');

/** A POST body is JSON: `application/json` with any parameters. */
export const isJsonContent = (contentType: string | undefined): boolean =>
  (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';

/**
 * docs/serve.md#serve-protocol-version: a missing header takes the revision the session
 * negotiated (the spec's "other way to identify the version"); a present one must name a
 * revision the bridge speaks.
 */
export const protocolVersionAllowed = (header: string | undefined): boolean =>
  header === undefined || (CLIENT_REVISIONS as readonly string[]).includes(header);

/** A session id as the front end makes them: base64url of 16 bytes or more. */
/** The first value of a request header that Node may give as a list. */
export const firstHeader = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

export const isSessionIdShape = (id: string): boolean => /^[A-Za-z0-9_-]{22,128}$/.test(id);
