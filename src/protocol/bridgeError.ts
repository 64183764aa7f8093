/**
 * The one local error type of the bridge. `code` is a stable string: a cause of the wire error
 * table (src/protocol/errors.ts) where the failure maps to a JSON-RPC error, so that the frame
 * for the client is `bridgeErrorFrame(id, error.code, error.detail)`.
 */
import type { Cause } from './errors.js';

/** The optional fields of a BridgeError. */
export interface BridgeErrorInit {
  readonly detail?: string;
  /** HTTP status of a failed HTTP exchange (appended to details as `HTTP status N`). */
  readonly httpStatus?: number;
  readonly cause?: unknown;
}

/** The one error type of the bridge, with a stable string code of the error table (src/protocol/errors.ts). */
export class BridgeError extends Error {
  readonly code: Cause;
  readonly detail: string | undefined;
  readonly httpStatus: number | undefined;

  constructor(code: Cause, init: BridgeErrorInit = {}) {
    super(init.detail === undefined ? code : `${code}: ${init.detail}`, { cause: init.cause });
    this.name = 'BridgeError';
    this.code = code;
    this.detail = init.detail;
    this.httpStatus = init.httpStatus;
  }
}

/** True for a BridgeError. */
export const isBridgeError = (value: unknown): value is BridgeError => value instanceof BridgeError;
