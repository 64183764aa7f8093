/**
 * The limit of wrong bearer tokens per source address (docs/serve.md#serve-token-limit): after
 * `maxFailures` wrong tokens from one address within `windowMs` of its first, that address gets
 * `429` with `Retry-After` until the window ends, without its token being looked at, so guessing
 * runs at `maxFailures` a window. Other addresses are not slowed. The table of addresses is an LRU
 * of `maxSources`: a flood of addresses pushes out the oldest, never grows memory. Pure: the clock
 * is given.
 */

/** The defaults: 10 wrong tokens a minute per address, 4096 addresses remembered. */
export const TOKEN_THROTTLE = { maxFailures: 10, windowMs: 60_000, maxSources: 4096 } as const;

export interface TokenThrottleLimits {
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly maxSources: number;
}

export interface TokenThrottle {
  /** Seconds until `source` may try again (for `Retry-After`), or undefined: it may try now. */
  readonly blockedFor: (source: string) => number | undefined;
  /** Counts one wrong token of `source`. */
  readonly failed: (source: string) => void;
  /** Addresses remembered now. */
  readonly size: () => number;
}

interface Window {
  readonly start: number;
  readonly failures: number;
}

/** A throttle on the clock `now` (milliseconds, monotonic). */
export function createTokenThrottle(
  now: () => number,
  limits: TokenThrottleLimits = TOKEN_THROTTLE,
): TokenThrottle {
  // Insertion order is the LRU order: a touched address is deleted and set again.
  const windows = new Map<string, Window>();
  const current = (source: string): Window | undefined => {
    const window = windows.get(source);
    if (window === undefined) return undefined;
    if (now() - window.start < limits.windowMs) return window;
    windows.delete(source);
    return undefined;
  };
  return {
    blockedFor: (source) => {
      const window = current(source);
      if (window === undefined || window.failures < limits.maxFailures) return undefined;
      return Math.max(1, Math.ceil((window.start + limits.windowMs - now()) / 1000));
    },
    failed: (source) => {
      const window = current(source);
      windows.delete(source);
      windows.set(source, {
        start: window?.start ?? now(),
        failures: (window?.failures ?? 0) + 1,
      });
      if (windows.size > limits.maxSources) windows.delete(windows.keys().next().value!);
    },
    size: () => windows.size,
  };
}

/** The address a throttle counts: an IPv4-mapped IPv6 address as its IPv4 address. */
export const sourceOf = (remoteAddress: string | undefined): string =>
  (remoteAddress ?? '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
