/**
 * Upstream log messages for the client (docs/notifications.md#notifications-log-levels, docs/notifications.md#notifications-log-levels). 2026-07-28
 * servers log only for requests that carried a level; the client's level is global, so every
 * valid message at or above it passes, as `{level, logger?, data}` without `_meta`.
 */
import { isObject, notification } from '../protocol/jsonrpc.js';
import type { JsonObject, NotificationFrame } from '../protocol/jsonrpc.js';
import { LOG_MESSAGE_METHOD } from '../ports/upstream.js';

/** The syslog levels of MCP, from the least to the most severe (RFC 5424 order). */
export const LOG_LEVELS: readonly string[] = Object.freeze([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

export const isLogLevel = (value: unknown): value is string =>
  typeof value === 'string' && LOG_LEVELS.includes(value);

// Its home is the port's rule of log messages in an exchange (src/ports/upstream.ts).
export { LOG_MESSAGE_METHOD };

/**
 * The message for the client, or undefined when it is not a valid `notifications/message`
 * (a level of the list, a string logger if any, a `data` member), when the client never set a
 * level, or when the message is below the client's level.
 */
export function toLegacyLogMessage(
  frame: NotificationFrame,
  clientLevel: string | undefined,
): NotificationFrame | undefined {
  if (frame.method !== LOG_MESSAGE_METHOD || !isLogLevel(clientLevel)) return undefined;
  const params = frame.params;
  if (!isObject(params) || !Object.hasOwn(params, 'data')) return undefined;
  const { level, logger, data } = params;
  if (!isLogLevel(level) || (logger !== undefined && typeof logger !== 'string') || data === undefined) {
    return undefined;
  }
  if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(clientLevel)) return undefined;
  const out: JsonObject = logger === undefined ? { level, data } : { level, logger, data };
  return notification(LOG_MESSAGE_METHOD, out);
}
