/**
 * What a holder of the sign-in lock learns about its hold: a process
 * that stalled past the lock's stale time (a laptop sleep, a debugger) may find that another
 * process took the lock over meanwhile. Spending a rotating refresh token a second time revokes
 * the whole token family at many authorization servers, so the work under the lock asks before
 * it spends one and stops when the hold is gone (upstreamAuth.ts, renewal.ts).
 */
import type { LockHold } from './types.js';

/** The hold of a lock was taken over by another process; the work under it must stop. */
export class LockLostError extends Error {
  constructor() {
    super('the sign-in lock was taken over by another bridge process');
    this.name = 'LockLostError';
  }
}

/** A hold that cannot be lost: the lock of one process (nothing else can take it over). */
export const steadyHold = (): LockHold => ({
  signal: new AbortController().signal,
  confirm: () => Promise.resolve(),
});
