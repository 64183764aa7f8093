/**
 * What follows the end of one listen stream (docs/notifications.md#notifications-reconnect, docs/http-upstream.md#http-listen-stream): a wait and a
 * new stream, a wait for a sign-in, or nothing. Pure; `operators/reopenListen.ts` runs it.
 */
import { isBridgeError } from '../protocol/bridgeError.js';
import { failureText } from '../ports/causeOf.js';
import type { ErrorObject } from '../protocol/jsonrpc.js';

/** How one stream ended. */
export type ListenEnd = { readonly refused?: ErrorObject; readonly failed?: unknown };

/** What follows an end: a wait then a new stream, a wait for a sign-in, or nothing; `why` starts the log line. */
export interface ListenNext {
  readonly kind: 'reopen' | 'signIn' | 'stop';
  readonly why?: string;
  readonly level?: 'info' | 'warn';
}

const retryableStatus = (status: number): boolean =>
  status === 408 || status === 429 || (status >= 500 && status <= 599 && status !== 501);

/** The reaction to the end of a stream (docs/notifications.md#notifications-reconnect, docs/http-upstream.md#http-listen-stream). Pure. */
export function decideListenEnd(end: ListenEnd, canSignIn: boolean): ListenNext {
  if (end.refused !== undefined) {
    const { code, message } = end.refused;
    return { kind: 'stop', why: `the upstream server refused the listen stream (error ${code}: ${message})` };
  }
  if (!('failed' in end))
    return { kind: 'reopen', why: 'the upstream server ended the listen stream', level: 'info' };
  const error = end.failed;
  const status = isBridgeError(error) ? error.httpStatus : undefined;
  // A 2xx stream that broke (`closed`) is a loss like any other; every other status decides.
  const broken =
    isBridgeError(error) && error.code === 'closed' && status !== undefined && status >= 200 && status <= 299;
  if (status !== undefined && !broken) {
    if (retryableStatus(status))
      return { kind: 'reopen', why: `the listen stream ended with the HTTP status ${status}` };
    const why = `the listen stream failed with the HTTP status ${status}`;
    return { kind: (status === 401 || status === 403) && canSignIn ? 'signIn' : 'stop', why };
  }
  // The upstream is gone: the stdio child exited, or the bridge closed the connection.
  const gone = isBridgeError(error) && (error.code === 'upstream_exited' || error.code === 'closed');
  return gone && status === undefined
    ? { kind: 'stop' }
    : { kind: 'reopen', why: `the listen stream ended: ${failureText(error)}` };
}

/** Throws a RangeError for a backoff that cannot work, when the operator is built. */
export function checkBackoff(backoff: {
  readonly initialMs: number;
  readonly factor: number;
  readonly maxMs: number;
  readonly resetAfterMs: number;
}): void {
  if (!(backoff.initialMs >= 0)) throw new RangeError('initialMs must be ≥ 0');
  if (!(backoff.factor >= 1)) throw new RangeError('factor must be ≥ 1');
  if (!(backoff.maxMs >= backoff.initialMs)) throw new RangeError('maxMs must be ≥ initialMs');
  if (!(backoff.resetAfterMs >= 0)) throw new RangeError('resetAfterMs must be ≥ 0');
}
