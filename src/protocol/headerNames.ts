/**
 * Header names that only the transport sets, so that neither `--header` nor `--header-env` may
 * give them (docs/http-upstream.md#http-headers). Names starting with `mcp-` are refused as well.
 */
export const TRANSPORT_HEADER_NAMES: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'accept',
  'content-type',
  'accept-encoding',
  'dpop',
  'te',
  'trailer',
  'upgrade',
  'keep-alive',
  'proxy-connection',
  'expect',
  'proxy-authorization',
]);
