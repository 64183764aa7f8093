/**
 * The wait for the sign-in lock (docs/sign-in.md#sign-in-lock): try to create the lock file; when
 * it is held, break it if it is stale (lockStale.ts, lockBreaker.ts), else poll again after a
 * randomised pause (lockPause.ts), until the file is ours or the signal aborts.
 */
import { STORE_SCOPE } from './record.js';
import { breakLock } from './lockBreaker.js';
import { createExclusive, type Holder, type LockRules } from './lockFile.js';
import { pollPause } from './lockPause.js';
import { staleness } from './lockStale.js';

/** Resolves once `file` holds `holder`; rejects with the signal's reason when it aborts first. */
export async function acquire(
  file: string,
  holder: Holder,
  rules: LockRules,
  signal: AbortSignal | undefined,
): Promise<void> {
  const content = JSON.stringify(holder);
  let waiting = false;
  for (;;) {
    signal?.throwIfAborted();
    if (await createExclusive(file, content)) return;
    if ((await staleness(file, rules)) !== undefined) await breakLock(file, rules);
    else {
      // Once per wait, before its first poll: the user sees why the request waits, and tests
      // wait for this line instead of a pause (docs/sign-in.md#sign-in-lock).
      if (!waiting) rules.logger.log(STORE_SCOPE, 'info', 'waits for the sign-in of another bridge process');
      waiting = true;
      await pollPause(rules.pollMs, signal);
    }
  }
}
