/**
 * BridgeError (docs/errors.md#errors-table): its data is typed, and it is recognised across two
 * copies of the package, which have two classes.
 */
import { describe, expect, it, vi } from 'vitest';
import { BridgeError, isBridgeError } from '../../src/protocol/bridgeError.js';
import type * as BridgeErrorModule from '../../src/protocol/bridgeError.js';

/** A second copy of the module, as a second copy of the package in node_modules would load it. */
async function secondCopy(): Promise<typeof BridgeErrorModule> {
  vi.resetModules();
  return import('../../src/protocol/bridgeError.js');
}

describe('BridgeError', () => {
  it('carries its cause, detail and HTTP status as frozen data', () => {
    const error = new BridgeError('transport_failed', { detail: 'tools/call', httpStatus: 502 });
    expect(error.data).toEqual({ cause: 'transport_failed', detail: 'tools/call', httpStatus: 502 });
    expect(new BridgeError('timeout').data).toEqual({ cause: 'timeout' });
    expect(Object.isFrozen(error.data)).toBe(true);
  });

  it('is recognised by isBridgeError and instanceof of another copy of the package', async () => {
    const other = await secondCopy();
    expect(other.BridgeError).not.toBe(BridgeError);
    const theirs = new other.BridgeError('closed', { detail: 'the response stream broke' });
    expect(isBridgeError(theirs)).toBe(true);
    expect(theirs instanceof BridgeError).toBe(true);
    expect(other.isBridgeError(new BridgeError('timeout'))).toBe(true);
    expect(new BridgeError('timeout') instanceof other.BridgeError).toBe(true);
  });

  it('is not claimed by other errors or values', () => {
    const lookalike = Object.assign(new Error('timeout'), { name: 'BridgeError', code: 'timeout' });
    for (const value of [lookalike, new TypeError('x'), { code: 'timeout' }, 'timeout', null, undefined]) {
      expect(isBridgeError(value)).toBe(false);
      expect(value instanceof BridgeError).toBe(false);
    }
  });

  it('keeps its brand out of its fields: a copy of its fields is no BridgeError', () => {
    const copy = { ...new BridgeError('internal') };
    expect(Object.getOwnPropertySymbols(copy)).toEqual([]);
    expect(isBridgeError(copy)).toBe(false);
  });
});
