/**
 * The telemetry of the sign-in steps (docs/observability.md#observability-sign-in): what a span
 * of a sign-in, a refresh or a wait for the token lock may carry (the grant, the authorization
 * server's origin at most, an error code), and how a step's promise ends its span. Never a
 * token, a code, a URL path or query, nor a header value.
 */
import type { SignInOutcome, SignInStepHandle, SignInStepInfo, TraceContext } from '../ports/telemetry.js';
import { isBridgeError } from '../protocol/bridgeError.js';
import { LockLostError } from './store/hold.js';

/** The origin of an issuer (scheme, host, port: no path, no query, no user), or undefined. */
export function issuerOrigin(issuer: string): string | undefined {
  const url = URL.parse(issuer);
  return url === null ? undefined : url.origin;
}

/** The step of `grant` at the server of `issuer`, under the refused request's `parent`. */
export function stepInfo(grant: string, issuer: string, parent: TraceContext | undefined): SignInStepInfo {
  const server = issuerOrigin(issuer);
  return {
    grant,
    ...(server === undefined ? {} : { server }),
    ...(parent === undefined ? {} : { parent }),
  };
}

/** The error type of a failed step: the bridge's code, `lock_lost`, or the error's name. */
export function stepErrorType(error: unknown): string {
  if (isBridgeError(error)) return error.code;
  if (error instanceof LockLostError) return 'lock_lost';
  return error instanceof Error ? error.name : 'error';
}

/** Runs `step` and ends `handle` with its outcome (`outcome` of its value), or `failed` when it rejects. */
export async function traced<T>(
  handle: SignInStepHandle,
  step: () => Promise<T>,
  outcome: (value: T) => SignInOutcome,
): Promise<T> {
  let value: T;
  try {
    value = await step();
  } catch (error) {
    handle.end('failed', stepErrorType(error));
    throw error;
  }
  handle.end(outcome(value));
  return value;
}
