/**
 * The one local error type of the bridge. `code` is a stable string: a cause of the wire error
 * table (src/protocol/errors.ts) where the failure maps to a JSON-RPC error, so that the frame
 * for the client is `bridgeErrorFrame(id, error.code, error.detail)`.
 *
 * An application may load two copies of the package (two versions in `node_modules`, or the ESM
 * and the CommonJS build): each has its own class, so a bare `instanceof` of one copy says false
 * for an error of the other. Every BridgeError therefore carries a brand under a `Symbol.for` key,
 * which all copies share, and `isBridgeError` and `instanceof BridgeError` check the brand
 * (docs/errors.md#errors-table).
 */
import type { Cause } from './errors.js';

/** The optional fields of a BridgeError. */
export interface BridgeErrorInit {
  readonly detail?: string;
  /** HTTP status of a failed HTTP exchange (appended to details as `HTTP status N`). */
  readonly httpStatus?: number;
  readonly cause?: unknown;
}

/**
 * What a program reads of a BridgeError, in the shape of the `data` of the bridge's error
 * frames (`{ cause, detail? }`, docs/errors.md#errors-table) plus the HTTP status, if any.
 */
export interface BridgeErrorData {
  readonly cause: Cause;
  readonly detail?: string;
  readonly httpStatus?: number;
}

/** The brand of every BridgeError, the same key in every copy of the package. */
const BRAND = Symbol.for('mcp-bridge-sdk.BridgeError');

/** The one error type of the bridge, with a stable string code of the error table (src/protocol/errors.ts). */
export class BridgeError extends Error {
  readonly code: Cause;
  readonly detail: string | undefined;
  readonly httpStatus: number | undefined;
  /** The code, detail and HTTP status as data (frozen). */
  readonly data: BridgeErrorData;

  constructor(code: Cause, init: BridgeErrorInit = {}) {
    super(init.detail === undefined ? code : `${code}: ${init.detail}`, { cause: init.cause });
    this.name = 'BridgeError';
    this.code = code;
    this.detail = init.detail;
    this.httpStatus = init.httpStatus;
    this.data = Object.freeze({
      cause: code,
      ...(init.detail === undefined ? {} : { detail: init.detail }),
      ...(init.httpStatus === undefined ? {} : { httpStatus: init.httpStatus }),
    });
    // Not enumerable: the brand is no field of the error, and equality checks do not see it.
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** `instanceof BridgeError` is true for a BridgeError of any copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBridgeError(value);
  }
}

/** True for a BridgeError, also one made by another copy of the package. */
export function isBridgeError(value: unknown): value is BridgeError {
  return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}
