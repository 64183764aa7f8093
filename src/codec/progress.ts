/**
 * Upstream progress for the client (docs/requests.md#requests-progress): it reaches the client
 * only when the client sent a progress token (0 included), only while its value increases across
 * all rounds of the request, and with the client's token in place of the upstream one. Pure.
 */
import type { JsonObject, JsonValue, NotificationFrame } from '../protocol/jsonrpc.js';
import { notification } from '../protocol/jsonrpc.js';

/** What one request remembers of the progress it forwarded. */
export interface ProgressState {
  /** The client's progress token, if it sent one. */
  readonly progressToken: JsonValue | undefined;
  /** The last value forwarded (across rounds); -Infinity before the first. */
  lastProgress: number;
}

/**
 * The progress notification for the client of one upstream notification, or undefined when
 * nothing goes; records the value it lets through in `state`.
 */
export function clientProgress(
  state: ProgressState,
  upstream: NotificationFrame,
): NotificationFrame | undefined {
  if (upstream.method !== 'notifications/progress') return undefined;
  const params = upstream.params ?? {};
  const value = params['progress'];
  const token = state.progressToken;
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  if (typeof value !== 'number' || !(value > state.lastProgress)) return undefined;
  state.lastProgress = value;
  const forwarded: JsonObject = { progressToken: token, progress: value };
  if (params['total'] !== undefined) forwarded['total'] = params['total'];
  if (params['message'] !== undefined) forwarded['message'] = params['message'];
  return notification('notifications/progress', forwarded);
}
