/**
 * The takeover of a stale sign-in lock is itself serialised by a short-lived `<lock>.break` file
 * (also created exclusively): under it a waiter judges the lock again and deletes it, so two
 * waiters never both break the same lock, and a waiter never deletes a lock a third process has
 * just taken. A holder checks its ownership under the same file (confirm(), lockHeld.ts), so no
 * waiter deletes the lock between that check and what follows it (docs/sign-in.md#sign-in-lock).
 */
import { unlink } from 'node:fs/promises';
import { STORE_SCOPE } from './record.js';
import { createExclusive, errorCode, type LockRules } from './lockFile.js';
import { pollPause } from './lockPause.js';
import { olderThan, staleness } from './lockStale.js';

const breakerOf = (file: string): string => `${file}.break`;

/**
 * Deletes a `.break` file older than the stale bound: a breaker that crashed within its few
 * milliseconds leaves it behind. True when it was deleted.
 */
async function clearStaleBreaker(breaker: string, rules: LockRules): Promise<boolean> {
  if (!(await olderThan(breaker, rules.staleMs))) return false;
  await unlink(breaker).catch(() => undefined);
  return true;
}

const takeBreaker = (file: string): Promise<boolean> => createExclusive(breakerOf(file), String(process.pid));

const dropBreaker = (file: string): Promise<void> => unlink(breakerOf(file)).catch(() => undefined);

/** Deletes a stale lock, judged again under the `.break` file so only one waiter does it. */
export async function breakLock(file: string, rules: LockRules): Promise<void> {
  if (!(await takeBreaker(file))) {
    await clearStaleBreaker(breakerOf(file), rules);
    return;
  }
  try {
    const why = await staleness(file, rules);
    if (why === undefined) return;
    await unlink(file).catch((error: unknown) => {
      if (errorCode(error) !== 'ENOENT') throw error;
    });
    rules.logger.log(STORE_SCOPE, 'warn', `the sign-in lock of another bridge process is taken over: ${why}`);
  } finally {
    await dropBreaker(file);
  }
}

/**
 * Runs `judge` while holding the `.break` file of `file`, which a waiter must hold to delete a
 * stale lock (breakLock): no takeover can happen between the judgement and what follows it.
 */
export async function underBreaker<T>(file: string, rules: LockRules, judge: () => Promise<T>): Promise<T> {
  // A waiter that judges the lock right now holds the breaker: wait for it.
  while (!(await takeBreaker(file)))
    if (!(await clearStaleBreaker(breakerOf(file), rules))) await pollPause(rules.pollMs);
  try {
    return await judge();
  } finally {
    await dropBreaker(file);
  }
}
