/**
 * Event builders for marble diagrams of the operators (docs/testing.md#testing-infrastructure): the upstream
 * events that `reopenListen` and `driveInputRounds` read, the outputs of `driveInputRounds`, the
 * client answers, and a source that hands out one cold per subscription. Shipped as
 * `mcp-bridge-sdk/testing`; runtime-neutral.
 */
import { NEVER, defer } from 'rxjs';
import type { Observable } from 'rxjs';
import type {
  ErrorObject,
  Frame,
  JsonObject,
  NotificationFrame,
  ResponseFrame,
} from '../protocol/jsonrpc.js';

/** An upstream response as an `ExchangeEvent`. */
export const responseEvent = <F extends ResponseFrame>(
  frame: F,
): { readonly type: 'response'; readonly frame: F } => ({ type: 'response', frame });

/** An upstream notification as an `ExchangeEvent`. */
export const notificationEvent = (
  frame: NotificationFrame,
): { readonly type: 'notification'; readonly frame: NotificationFrame } => ({ type: 'notification', frame });

/** A frame `driveInputRounds` sends to the client (`RoundOutput`). */
export const toClientOutput = (frame: Frame): { readonly type: 'toClient'; readonly frame: Frame } => ({
  type: 'toClient',
  frame,
});

/** The final result of `driveInputRounds` (`RoundOutput`). */
export const resultOutput = (
  result: JsonObject,
): { readonly type: 'result'; readonly result: JsonObject } => ({
  type: 'result',
  result,
});

/** The error a client request fails with in `driveInputRounds` (`RoundOutput`). */
export const errorOutput = (error: ErrorObject): { readonly type: 'error'; readonly error: ErrorObject } => ({
  type: 'error',
  error,
});

/** The client's answer to the bridge request `id` (`ClientAnswer`). */
export const clientAnswer = (
  id: string,
  result: JsonObject,
): { readonly id: string; readonly result: JsonObject } => ({
  id,
  result,
});

/** The UTF-8 bytes of a text, a chunk for `decodeLines`. */
export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * A source that subscribes to the next of `streams` on each subscription (a reconnect test: one
 * cold per attempt), and to NEVER after the last one.
 *
 * @example
 * const first = cold('-k--#');
 * const second = cold('-k-----');
 * sequence([first, second]).pipe(reopenListen());
 */
export function sequence<T>(streams: readonly Observable<T>[]): Observable<T> {
  let n = 0;
  return defer(() => streams[n++] ?? NEVER);
}
