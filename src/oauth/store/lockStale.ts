/**
 * When a waiter may take the sign-in lock over (docs/sign-in.md#sign-in-lock): when the holder's
 * heartbeat (the file's mtime) is older than `staleMs` (a crashed or hung holder, on any host), or
 * at once when the holder ran on this host and its pid no longer exists (killed).
 */
import { stat } from 'node:fs/promises';
import { errorCode, readHolder, type LockRules } from './lockFile.js';

/** True when `pid` names a live process on this host (EPERM: it exists but is not ours). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/** True when `file` exists and was last touched more than `ms` ago. */
export async function olderThan(file: string, ms: number): Promise<boolean> {
  const info = await stat(file).catch(() => undefined);
  return info !== undefined && Date.now() - info.mtimeMs > ms;
}

/** Why the lock in `file` may be taken over, or undefined while its holder lives (or it is gone). */
export async function staleness(file: string, rules: LockRules): Promise<string | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (info === undefined) return undefined;
  if (Date.now() - info.mtimeMs > rules.staleMs) return 'its heartbeat stopped';
  const holder = await readHolder(file);
  if (holder !== undefined && holder.host === rules.host && holder.pid !== process.pid && !alive(holder.pid))
    return `its process ${holder.pid} ended`;
  return undefined;
}
