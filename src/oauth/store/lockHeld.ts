/**
 * The sign-in lock while it is held (docs/sign-in.md#sign-in-lock). A heartbeat refreshes the
 * file's mtime every `heartbeatMs`, after checking that the file still holds our owner id. A
 * holder that stalled past `staleMs` may have lost the lock: the heartbeat that finds another
 * owner (or none) aborts the hold's signal, and `confirm()` checks the owner on demand under the
 * `.break` file (lockBreaker.ts), so the work under the lock stops before it spends a refresh
 * token twice (hold.ts; docs/sign-in.md#sign-in-refresh). Release deletes the file only if it
 * still holds our owner id (after a takeover it is not ours).
 */
import { utimes } from 'node:fs/promises';
import { LockLostError } from './hold.js';
import { STORE_SCOPE } from './record.js';
import { underBreaker } from './lockBreaker.js';
import { forgetAtExit } from './lockExit.js';
import { deleteIfOwned, readHolder, type LockRules } from './lockFile.js';
import type { LockHold } from './types.js';

/** One hold's state: `released` once its work ended, `lost` aborted once another took it. */
interface HoldState {
  readonly file: string;
  readonly owner: string;
  readonly rules: LockRules;
  readonly lost: AbortController;
  released: boolean;
}

function markLost(state: HoldState): void {
  if (state.lost.signal.aborted) return;
  state.rules.logger.log(
    STORE_SCOPE,
    'warn',
    'the sign-in lock of this process was taken over by another bridge process',
  );
  state.lost.abort(new LockLostError());
}

/** True while the file holds our owner id; renews the heartbeat then. */
async function checkOwner(state: HoldState): Promise<boolean> {
  const current = await readHolder(state.file);
  // `released`: a beat that was under way when the work ended sees the file gone; not a takeover.
  if (state.released) return true;
  if (current?.owner !== state.owner) {
    markLost(state);
    return false;
  }
  const now = new Date();
  await utimes(state.file, now, now).catch(() => undefined);
  return true;
}

/** What the work under the lock sees of its hold. */
function holdOf(state: HoldState): LockHold {
  return {
    signal: state.lost.signal,
    // Under the breaker: a waiter that judged our heartbeat stale (we stalled) cannot delete
    // the lock between this check and the refresh that follows it.
    confirm: async () => {
      if (
        state.lost.signal.aborted ||
        !(await underBreaker(state.file, state.rules, () => checkOwner(state)))
      )
        throw new LockLostError();
    },
  };
}

/** Runs `work` on the lock `file`, just acquired for `owner`, with a heartbeat; releases it after. */
export async function workWhileHeld<T>(
  file: string,
  owner: string,
  rules: LockRules,
  work: (held: LockHold) => Promise<T>,
): Promise<T> {
  const state: HoldState = { file, owner, rules, lost: new AbortController(), released: false };
  const beat = async (): Promise<void> => {
    if (!state.lost.signal.aborted && !state.released) await checkOwner(state);
  };
  const timer = setInterval(() => void beat(), rules.heartbeatMs);
  timer.unref();
  try {
    return await work(holdOf(state));
  } finally {
    state.released = true;
    forgetAtExit(file);
    clearInterval(timer);
    await deleteIfOwned(file, owner);
  }
}
