/**
 * The wait between two looks at the sign-in lock: `pollMs` on average, randomised ±50 % so that
 * waiters do not move in step (docs/sign-in.md#sign-in-lock).
 */

/** Waits `ms`; rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** One poll's wait: between half and one and a half `pollMs`. */
export const pollPause = (pollMs: number, signal?: AbortSignal): Promise<void> =>
  sleep(pollMs * (0.5 + Math.random()), signal);
