import { describe, expect, it } from 'vitest';
import { LOG_LEVELS, isLogLevel, toLegacyLogMessage } from '../../src/codec/logMessage.js';
import { notification } from '../../src/protocol/jsonrpc.js';
import type { JsonObject } from '../../src/protocol/jsonrpc.js';
import { validateLegacyFrame } from '../helpers/schemas.js';

const message = (params: JsonObject) => notification('notifications/message', params);

describe('LOG_LEVELS', () => {
  it('lists the eight syslog levels from the least severe', () => {
    expect(LOG_LEVELS).toEqual([
      'debug',
      'info',
      'notice',
      'warning',
      'error',
      'critical',
      'alert',
      'emergency',
    ]);
    expect(isLogLevel('notice')).toBe(true);
    expect(isLogLevel('verbose')).toBe(false);
    expect(isLogLevel(3)).toBe(false);
  });
});

describe('toLegacyLogMessage', () => {
  it('forwards exactly {level, logger, data} at or above the client level', () => {
    const upstream = message({ level: 'error', logger: 'db', data: { n: 1 }, _meta: { x: 1 }, extra: true });
    const out = toLegacyLogMessage(upstream, 'warning');
    expect(out).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'error', logger: 'db', data: { n: 1 } },
    });
    expect(validateLegacyFrame(out, 'toClient')).toEqual([]);
    expect(toLegacyLogMessage(message({ level: 'warning', data: null }), 'warning')?.params).toEqual({
      level: 'warning',
      data: null,
    });
  });

  it('drops a message below the client level', () => {
    expect(toLegacyLogMessage(message({ level: 'info', data: 'x' }), 'notice')).toBeUndefined();
  });

  it('drops every message when the client never set a level', () => {
    expect(toLegacyLogMessage(message({ level: 'emergency', data: 'x' }), undefined)).toBeUndefined();
  });

  it.each([
    ['an unknown level', { level: 'verbose', data: 1 }],
    ['no data', { level: 'info' }],
    ['a logger that is not a string', { level: 'info', logger: 5, data: 1 }],
  ])('drops a message with %s', (_name, params) => {
    expect(toLegacyLogMessage(message(params as JsonObject), 'debug')).toBeUndefined();
  });

  it('drops other notifications and messages without params', () => {
    expect(
      toLegacyLogMessage(notification('notifications/progress', { level: 'info', data: 1 }), 'debug'),
    ).toBeUndefined();
    expect(toLegacyLogMessage(notification('notifications/message'), 'debug')).toBeUndefined();
  });
});
