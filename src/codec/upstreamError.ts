/**
 * Upstream JSON-RPC errors for the client (docs/results.md#results-shape, docs/results.md#results-upstream-errors). Upstream
 * errors pass unchanged and never get a `data.cause`, with two exceptions here:
 * - -32042 (the 2025-11-25 "URL elicitation required" error, retired in 2026-07-28) becomes
 *   -32603 with the same message and no data, because VS Code would open every URL in its data;
 * - a `resources/read` refused with -32602 that says "not found" (a `data.uri`, or the words in
 *   its message) becomes -32002, the 2025-11-25 resource-not-found code, with its message and
 *   data (docs/results.md#results-resources-read, traps 28: 2026-07-28 servers MUST use -32602 there, and
 *   2025-11-25 clients expect -32002). Other -32602s pass unchanged; the protocol wins over the
 *   reference's "unchanged" here.
 *
 * The other exception of docs/results.md#results-shape, a -32602 that refuses `requestState`, depends on the round and
 * belongs to the input-round driver.
 */
import { INTERNAL_ERROR, INVALID_PARAMS, URL_ELICITATION_REQUIRED } from '../protocol/errors.js';
import type { ErrorObject } from '../protocol/jsonrpc.js';
import { isObject } from '../protocol/jsonrpc.js';

/** The 2025-11-25 resource-not-found code (retired in 2026-07-28). */
const RESOURCE_NOT_FOUND = -32002;

const saysNotFound = (error: ErrorObject): boolean =>
  (isObject(error.data) && typeof error.data['uri'] === 'string') || /not found/i.test(error.message);

export function toClientError(error: ErrorObject, method?: string): ErrorObject {
  if (error.code === URL_ELICITATION_REQUIRED) return { code: INTERNAL_ERROR, message: error.message };
  if (method === 'resources/read' && error.code === INVALID_PARAMS && saysNotFound(error)) {
    return { ...error, code: RESOURCE_NOT_FOUND };
  }
  return error;
}
