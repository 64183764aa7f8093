/**
 * JSON-RPC 2.0 frame model shared by both MCP revisions. Pure: no rxjs, no node:*.
 */

/** A JSON scalar. */
export type JsonPrimitive = string | number | boolean | null;
/** Any JSON value. */
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** A JSON-RPC id. `1` and `"1"` are different ids (docs/requests.md#requests-ids trap 2). */
export type RequestId = string | number;

/** A JSON-RPC request. */
export interface RequestFrame {
  readonly jsonrpc: '2.0';
  readonly id: RequestId;
  readonly method: string;
  readonly params?: JsonObject;
}

/** A JSON-RPC notification. */
export interface NotificationFrame {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: JsonObject;
}

/** The `error` member of a JSON-RPC error response. */
export interface ErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: JsonValue;
}

/** A JSON-RPC response with a result. */
export interface ResultFrame {
  readonly jsonrpc: '2.0';
  /** null only on an answer that no request can match (dropped by the receiver, docs/lines.md#lines-client-responses). */
  readonly id: RequestId | null;
  readonly result: JsonObject;
}

/** A JSON-RPC response with an error. */
export interface ErrorFrame {
  readonly jsonrpc: '2.0';
  readonly id: RequestId | null;
  readonly error: ErrorObject;
}

/** A JSON-RPC response. */
export type ResponseFrame = ResultFrame | ErrorFrame;
/** Any JSON-RPC message. */
export type Frame = RequestFrame | NotificationFrame | ResponseFrame;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const isRequestId = (value: unknown): value is RequestId =>
  typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

export const isRequest = (frame: Frame): frame is RequestFrame => 'method' in frame && 'id' in frame;
export const isNotification = (frame: Frame): frame is NotificationFrame =>
  'method' in frame && !('id' in frame);
export const isResponse = (frame: Frame): frame is ResponseFrame => !('method' in frame);
export const isErrorResponse = (frame: Frame): frame is ErrorFrame => 'error' in frame;

export const request = (id: RequestId, method: string, params?: JsonObject): RequestFrame =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

export const notification = (method: string, params?: JsonObject): NotificationFrame =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };

export const result = (id: RequestId, value: JsonObject): ResultFrame => ({
  jsonrpc: '2.0',
  id,
  result: value,
});

export const errorResponse = (id: RequestId | null, error: ErrorObject): ErrorFrame => ({
  jsonrpc: '2.0',
  id,
  error,
});

/**
 * Checks that a parsed JSON value is a JSON-RPC 2.0 message (docs/lines.md#lines-bad-line:
 * valid JSON that is not JSON-RPC 2.0 is -32600 `invalid_request_shape`).
 */
export function asFrame(value: unknown): Frame | undefined {
  if (!isObject(value) || value['jsonrpc'] !== '2.0') return undefined;
  const { id, method, params, result: res, error } = value;
  if (params !== undefined && !isObject(params) && !Array.isArray(params)) return undefined;
  if (typeof method === 'string') {
    if (res !== undefined || error !== undefined) return undefined;
    if (params !== undefined && !isObject(params)) return undefined;
    if (id === undefined) return value as unknown as NotificationFrame;
    return isRequestId(id) ? (value as unknown as RequestFrame) : undefined;
  }
  if (method !== undefined) return undefined;
  // A response with an id no request can have (null, 1.5) is still a response: docs/lines.md#lines-client-responses
  //  drops such answers silently instead of answering them with -32600.
  const responseId = id === null || typeof id === 'string' || typeof id === 'number';
  if (res !== undefined && error === undefined) {
    return responseId && isObject(res) ? (value as unknown as ResultFrame) : undefined;
  }
  if (error !== undefined && res === undefined) {
    if (!isObject(error) || typeof error['code'] !== 'number' || typeof error['message'] !== 'string') {
      return undefined;
    }
    return responseId ? (value as unknown as ErrorFrame) : undefined;
  }
  return undefined;
}
