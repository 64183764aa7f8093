/**
 * The limit of wrong bearer tokens per source address (docs/serve.md#serve-token-limit) on a
 * virtual clock: 429 after the failures of a window, the Retry-After of its rest, other addresses
 * untouched, and a bounded table of addresses.
 */
import { describe, expect, it } from 'vitest';
import { createTokenThrottle, sourceOf } from '../../../src/edges/httpFront/tokenThrottle.js';

/** A clock the test moves. */
function virtualClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_000;
  return { now: () => time, advance: (ms) => (time += ms) };
}

const LIMITS = { maxFailures: 3, windowMs: 60_000, maxSources: 2 };

describe('createTokenThrottle', () => {
  it('lets an address try until its failures of the window, then blocks it until the window ends', () => {
    const clock = virtualClock();
    const throttle = createTokenThrottle(clock.now, LIMITS);
    throttle.failed('127.0.0.1');
    clock.advance(10_000);
    throttle.failed('127.0.0.1');
    expect(throttle.blockedFor('127.0.0.1')).toBeUndefined();
    throttle.failed('127.0.0.1');
    expect(throttle.blockedFor('127.0.0.1')).toBe(50);
    clock.advance(49_001);
    expect(throttle.blockedFor('127.0.0.1')).toBe(1);
    clock.advance(999);
    expect(throttle.blockedFor('127.0.0.1')).toBeUndefined();
    // A new window starts with the next failure.
    throttle.failed('127.0.0.1');
    expect(throttle.blockedFor('127.0.0.1')).toBeUndefined();
  });

  it('does not slow another address', () => {
    const clock = virtualClock();
    const throttle = createTokenThrottle(clock.now, LIMITS);
    for (let n = 0; n < 3; n += 1) throttle.failed('::1');
    expect(throttle.blockedFor('::1')).toBe(60);
    expect(throttle.blockedFor('127.0.0.1')).toBeUndefined();
  });

  it('remembers at most maxSources addresses: the one touched longest ago goes first', () => {
    const clock = virtualClock();
    const throttle = createTokenThrottle(clock.now, LIMITS);
    for (let n = 0; n < 3; n += 1) throttle.failed('10.0.0.1');
    throttle.failed('10.0.0.2');
    throttle.failed('10.0.0.1');
    throttle.failed('10.0.0.3');
    expect(throttle.size()).toBe(2);
    expect(throttle.blockedFor('10.0.0.1')).toBe(60);
    throttle.failed('10.0.0.2');
    expect(throttle.blockedFor('10.0.0.2')).toBeUndefined();
    throttle.failed('10.0.0.2');
    // 10.0.0.2 came back after it was pushed out: its count starts again at 1.
    expect(throttle.blockedFor('10.0.0.2')).toBeUndefined();
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(sourceOf('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(sourceOf('::1')).toBe('::1');
    expect(sourceOf(undefined)).toBe('');
  });
});
