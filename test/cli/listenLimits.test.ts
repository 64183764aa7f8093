/**
 * The listen limits the executables give the bridge (src/cli/listenLimits.ts,
 * docs/notifications.md#notifications-reconnect): only what the options set, and never a longest
 * wait below the first one (the reopen operator refuses that with a RangeError).
 */
import { describe, expect, it } from 'vitest';
import { listenLimits } from '../../src/cli/listenLimits.js';

describe('listenLimits', () => {
  it.each([
    { when: 'without the options: nothing, so that the bridge keeps its defaults', given: {}, limits: {} },
    {
      when: 'with both options: both as given',
      given: { listenBackoffMs: 20, listenMaxBackoffMs: 80 },
      limits: { listenBackoffMs: 20, listenMaxBackoffMs: 80 },
    },
    {
      when: 'with a first wait alone: the default longest wait (30 s) above it',
      given: { listenBackoffMs: 20 },
      limits: { listenBackoffMs: 20, listenMaxBackoffMs: 30_000 },
    },
    {
      when: 'with a first wait alone above 30 s: the longest wait raised to it',
      given: { listenBackoffMs: 60_000 },
      limits: { listenBackoffMs: 60_000, listenMaxBackoffMs: 60_000 },
    },
    {
      when: 'with a longest wait alone: the default first wait (500 ms) under it',
      given: { listenMaxBackoffMs: 5_000 },
      limits: { listenBackoffMs: 500, listenMaxBackoffMs: 5_000 },
    },
    {
      when: 'with a longest wait alone below 500 ms: the first wait lowered to it',
      given: { listenMaxBackoffMs: 100 },
      limits: { listenBackoffMs: 100, listenMaxBackoffMs: 100 },
    },
  ])('$when', ({ given, limits }) => {
    expect(listenLimits(given)).toEqual(limits);
  });
});
