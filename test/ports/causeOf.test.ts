/**
 * The error describers of src/ports/causeOf.ts: codes and names, never a message, which may hold
 * a token or the upstream URL (SECURITY.md).
 */
import { describe, expect, it } from 'vitest';
import { causeOf, errorName, failureText } from '../../src/ports/causeOf.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';

const secret = new Error('Bearer abc.def at https://example.test/mcp');

describe('the error describers', () => {
  it('errorName says a BridgeError code, an Error name, or the type of anything else', () => {
    expect(errorName(new BridgeError('timeout', { detail: 'tools/call' }))).toBe('timeout');
    expect(errorName(new TypeError('Bearer abc'))).toBe('TypeError');
    expect(errorName('Bearer abc')).toBe('string');
  });

  it('failureText says the code with its detail and HTTP status, and nothing of other errors', () => {
    expect(failureText(new BridgeError('transport_failed', { detail: 'tools/list', httpStatus: 502 }))).toBe(
      'transport_failed (tools/list, HTTP status 502)',
    );
    expect(failureText(new BridgeError('closed', { httpStatus: 200 }))).toBe('closed (HTTP status 200)');
    expect(failureText(new BridgeError('closed'))).toBe('closed');
    expect(failureText(secret)).toBe('internal failure');
  });

  it('causeOf says the code and detail, or the name with a Node code, never the message', () => {
    expect(causeOf(new BridgeError('spawn_failed', { detail: 'ENOENT' }))).toBe('spawn_failed: ENOENT');
    expect(causeOf(Object.assign(new Error('connect to 10.0.0.1'), { code: 'ECONNREFUSED' }))).toBe(
      'Error ECONNREFUSED',
    );
    expect(causeOf(secret)).toBe('Error');
    expect(causeOf(42)).toBe('number');
  });
});
