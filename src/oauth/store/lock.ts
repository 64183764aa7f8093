/**
 * The cross-process sign-in lock: several bridge processes that need a sign-in or a refresh for
 * the same server URL and identity elect one; the others wait (docs/sign-in.md#sign-in-lock).
 * Plain files, no native code, so it works the same on Linux, macOS and Windows. By role:
 *
 * - lockFile.ts: the lock file `<dir>/<sha256(url, identity)>.lock`, created exclusively, holding
 *   `{ pid, host, owner }`; only its owner deletes it.
 * - lockAcquire.ts: the wait, polling every `pollMs` (100 ms, randomised ±50 %, lockPause.ts).
 * - lockStale.ts: a waiter takes over when the heartbeat is older than `staleMs` (10 s), or at
 *   once when the holder ran on this host and its pid no longer exists.
 * - lockBreaker.ts: a takeover is serialised by a short-lived `<lock>.break` file.
 * - lockHeld.ts: the heartbeat every `heartbeatMs` (1 s), the detection of a lost hold, release.
 * - lockExit.ts: the held files are deleted at exit and on SIGTERM, SIGINT and SIGHUP.
 *
 * Why not `proper-lockfile`: it has the same mtime staleness, but no pid check (a killed holder
 * always costs the full stale time), no owner check on release, and its default reaction to a
 * lost lock is an exception thrown outside any promise. These files are small and keep those rules.
 *
 * Within one process, holds of the same key are queued first (createProcessLock), so only one
 * hold per key and process touches the file.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { silentLogger, type Logger } from '../../ports/logger.js';
import { steadyHold } from './hold.js';
import { acquire } from './lockAcquire.js';
import { releaseAtExit } from './lockExit.js';
import type { Holder, LockRules } from './lockFile.js';
import { workWhileHeld } from './lockHeld.js';
import { createProcessLock } from './memoryStore.js';
import { reason, recordId, STORE_SCOPE } from './record.js';
import type { LockHold, RecordKey, SignInLock } from './types.js';

export interface FileLockOptions {
  readonly directory: string;
  /** A heartbeat older than this is a dead or hung holder. Default 10 000 ms. */
  readonly staleMs?: number;
  /** Default 1 000 ms; must be well below staleMs. */
  readonly heartbeatMs?: number;
  /** The mean wait between two attempts. Default 100 ms. */
  readonly pollMs?: number;
  readonly logger?: Logger;
}

const rulesOf = (options: FileLockOptions): LockRules => ({
  staleMs: options.staleMs ?? 10_000,
  heartbeatMs: options.heartbeatMs ?? 1_000,
  pollMs: options.pollMs ?? 100,
  logger: options.logger ?? silentLogger,
  host: hostname(),
});

/** Holds the lock file of `key` across processes while `work` runs. */
async function holdAcrossProcesses<T>(
  file: string,
  rules: LockRules,
  work: (held: LockHold) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  const holder: Holder = { pid: process.pid, host: rules.host, owner: randomBytes(16).toString('hex') };
  await acquire(file, holder, rules, signal);
  releaseAtExit(file, holder.owner);
  return workWhileHeld(file, holder.owner, rules, work);
}

export function createFileLock(options: FileLockOptions): SignInLock {
  const rules = rulesOf(options);
  const local = createProcessLock();
  let fallbackWarned = false;

  /** Makes the lock directory; without one the processes sign in alone, as with the memory store. */
  async function directoryReady(): Promise<boolean> {
    try {
      await mkdir(options.directory, { recursive: true, mode: 0o700 });
      return true;
    } catch (error) {
      if (!fallbackWarned)
        rules.logger.log(
          STORE_SCOPE,
          'warn',
          `the sign-in lock works within this process only: ${reason(error)}`,
        );
      fallbackWarned = true;
      return false;
    }
  }

  async function hold<T>(
    key: RecordKey,
    work: (held: LockHold) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (!(await directoryReady())) return work(steadyHold());
    const file = path.join(options.directory, `${recordId(key)}.lock`);
    return holdAcrossProcesses(file, rules, work, signal);
  }

  return {
    hold: (key, work, holdOptions) => local.hold(key, () => hold(key, work, holdOptions?.signal)),
  };
}
