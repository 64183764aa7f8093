/**
 * The listen limits the executables give the bridge (src/cli/listenLimits.ts,
 * docs/notifications.md#notifications-reconnect): only what the options set, and never a longest
 * wait below the first one (the reopen operator refuses that with a RangeError).
 */
import { describe, expect, it } from 'vitest';
import { listenLimits } from '../../src/cli/listenLimits.js';

describe('listenLimits', () => {
  it('gives nothing without the options, so that the bridge keeps its defaults', () => {
    expect(listenLimits({})).toEqual({});
  });

  it('takes both options as given', () => {
    expect(listenLimits({ listenBackoffMs: 20, listenMaxBackoffMs: 80 })).toEqual({
      listenBackoffMs: 20,
      listenMaxBackoffMs: 80,
    });
  });

  it('keeps the default longest wait (30 s) under a first wait given alone, and raises it to a longer one', () => {
    expect(listenLimits({ listenBackoffMs: 20 })).toEqual({
      listenBackoffMs: 20,
      listenMaxBackoffMs: 30_000,
    });
    expect(listenLimits({ listenBackoffMs: 60_000 })).toEqual({
      listenBackoffMs: 60_000,
      listenMaxBackoffMs: 60_000,
    });
  });

  it('keeps the default first wait (500 ms) under a longest wait given alone, and lowers it to a shorter one', () => {
    expect(listenLimits({ listenMaxBackoffMs: 5_000 })).toEqual({
      listenBackoffMs: 500,
      listenMaxBackoffMs: 5_000,
    });
    expect(listenLimits({ listenMaxBackoffMs: 100 })).toEqual({
      listenBackoffMs: 100,
      listenMaxBackoffMs: 100,
    });
  });
});
