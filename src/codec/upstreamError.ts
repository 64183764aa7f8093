/**
 * Upstream JSON-RPC errors for the client (reference-behaviors.md §3.6, §11 item 9). Upstream
 * errors pass unchanged and never get a `data.cause`, with one exception here: -32042 (the
 * 2025-11-25 "URL elicitation required" error, retired in 2026-07-28) becomes -32603 with the
 * same message and no data, because VS Code would open every URL in its data.
 *
 * The other exception of §3.6, a -32602 that refuses `requestState`, depends on the round and
 * belongs to the input-round driver.
 */
import { INTERNAL_ERROR, URL_ELICITATION_REQUIRED } from '../protocol/errors.js';
import type { ErrorObject } from '../protocol/jsonrpc.js';

export function toClientError(error: ErrorObject): ErrorObject {
  if (error.code !== URL_ELICITATION_REQUIRED) return error;
  return { code: INTERNAL_ERROR, message: error.message };
}
