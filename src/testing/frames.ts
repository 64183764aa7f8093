/**
 * Frame builders for tests and marble diagrams (docs/testing.md#testing-infrastructure): build every value of a
 * diagram with these instead of writing JSON inline. Shipped as `mcp-bridge-sdk/testing`.
 */
import { bridgeError, ERROR_TABLE } from '../protocol/errors.js';
import type { Cause } from '../protocol/errors.js';
import { errorResponse, notification, request, result } from '../protocol/jsonrpc.js';
import type {
  ErrorFrame,
  JsonObject,
  JsonValue,
  NotificationFrame,
  RequestFrame,
  RequestId,
  ResultFrame,
} from '../protocol/jsonrpc.js';

/** A request frame. */
export const req = (id: RequestId, method: string, params?: JsonObject): RequestFrame =>
  request(id, method, params);

/** A result frame. */
export const res = (id: RequestId, value: JsonObject): ResultFrame => result(id, value);

/**
 * An error frame. With a `cause` of the bridge's error table, the message is the table's and
 * `data` is `{cause, detail?}` (the code given wins over the table's); without one, the message
 * is `error <code>`.
 */
export function err(id: RequestId | null, code: number, cause?: Cause, detail?: string): ErrorFrame {
  if (cause === undefined) return errorResponse(id, { code, message: `error ${code}` });
  return errorResponse(id, bridgeError(cause, detail, code));
}

/** An error frame with a message and data of its own, as an upstream server or a client sends it. */
export const errWith = (id: RequestId | null, code: number, message: string, data?: JsonValue): ErrorFrame =>
  errorResponse(id, data === undefined ? { code, message } : { code, message, data });

/** A notification frame. */
export const note = (method: string, params?: JsonObject): NotificationFrame => notification(method, params);

/** `notifications/progress` for a token. */
export const progress = (progressToken: string | number, value: number, total?: number): NotificationFrame =>
  notification(
    'notifications/progress',
    total === undefined ? { progressToken, progress: value } : { progressToken, progress: value, total },
  );

/** An `input_required` result of revision 2026-07-28, with `requestState` when given. */
export const inputRequired = (inputRequests: JsonObject, requestState?: string): JsonObject =>
  requestState === undefined
    ? { resultType: 'input_required', inputRequests }
    : { resultType: 'input_required', inputRequests, requestState };

/** The message of a cause of the bridge's error table. */
export const causeMessage = (cause: Cause): string => ERROR_TABLE[cause][1];
