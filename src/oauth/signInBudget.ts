/**
 * How often a sign-in may start (docs/limits.md#limits-sign-in, SECURITY.md): a server that
 * answers every request with 401 would make the bridge run discovery, and more, for each request.
 */

/** The starts of the sign-in in a sliding window. */
export interface SignInBudget {
  /** Counts one start and is true, or is false and counts nothing once the window is full. */
  take(): boolean;
}

/** A sign-in (discovery, then a refresh or a new sign-in) starts at most this many times… */
export const MAX_SIGN_INS_PER_WINDOW = 5;
/** …in this sliding window. */
export const SIGN_IN_WINDOW_MS = 60_000;

/**
 * The starts of the sign-in within the window: `take()` is false, and counts nothing, once
 * {@link MAX_SIGN_INS_PER_WINDOW} starts are less than {@link SIGN_IN_WINDOW_MS} old.
 */
export function signInBudget(now: () => number): SignInBudget {
  const starts: number[] = [];
  return {
    take() {
      const at = now();
      while (starts.length > 0 && at - (starts[0] ?? at) >= SIGN_IN_WINDOW_MS) starts.shift();
      if (starts.length >= MAX_SIGN_INS_PER_WINDOW) return false;
      starts.push(at);
      return true;
    },
  };
}
