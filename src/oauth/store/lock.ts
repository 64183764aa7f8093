/**
 * The cross-process sign-in lock: several bridge processes that need a
 * sign-in or a refresh for the same server URL and identity elect one; the others wait. Plain
 * files, no native code, so it works the same on Linux, macOS and Windows:
 *
 * - `<dir>/<sha256(url, identity)>.lock` is created with `open(…, 'wx')` (exclusive create, atomic
 *   on every platform and on local file systems) and holds `{ pid, host, owner }`, `owner` a
 *   random id of this hold.
 * - While held, a heartbeat refreshes the file's mtime every `heartbeatMs` (1 s), after checking
 *   the file still holds our owner id.
 * - A waiter polls every `pollMs` (100 ms, randomised ±50 % so waiters do not move in step). It
 *   takes over when the heartbeat is older than `staleMs` (10 s: a crashed or hung holder, on any
 *   host), or at once when the holder ran on this host and its pid no longer exists (killed).
 * - A takeover is itself serialised by a short-lived `<lock>.break` file (also `wx`): under it the
 *   waiter judges the lock again and deletes it, so two waiters never both break the same lock,
 *   and a waiter never deletes a lock a third process has just taken.
 * - Release deletes the file only if it still holds our owner id (after a takeover it is not ours);
 *   so does the exit of the process while it holds the lock (releaseAtExit).
 * - A holder that stalled past `staleMs` may have lost the lock: the heartbeat that finds another
 *   owner (or none) aborts the hold's signal, and `confirm()` checks the owner on demand under the
 *   `.break` file (so no waiter deletes the lock between the check and what follows it), so the
 *   work under the lock stops before it spends a refresh token twice (hold.ts;
 *   docs/sign-in.md#sign-in-refresh).
 *
 * Why not `proper-lockfile`: it has the same mtime staleness, but no pid check (a killed holder
 * always costs the full stale time), no owner check on release, and its default reaction to a
 * lost lock is an exception thrown outside any promise. This file is small and keeps those rules.
 *
 * Within one process, holds of the same key are queued first (createProcessLock), so only one
 * hold per key and process touches the file.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { mkdir, open, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { silentLogger, type Logger } from '../../ports/logger.js';
import { LockLostError, steadyHold } from './hold.js';
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

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly owner: string;
}

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

const sleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
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

async function readHolder(file: string): Promise<Holder | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<Holder>;
    return typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.owner === 'string'
      ? (value as Holder)
      : undefined;
  } catch {
    return undefined; // absent, or created but not yet written: judged by its mtime alone
  }
}

/**
 * The lock files this process holds now, by path, with their owner ids. A bridge that exits
 * while it holds one (the end of stdin, SIGTERM and the watchdog all end in `process.exit`, which
 * runs no `finally` of the work under the lock) deletes it at its `exit` event, synchronously and
 * only if it still holds our owner id; a waiter then need not wait for the stale time. A killed
 * process (SIGKILL) runs nothing: the pid check of the waiters covers it on the same host.
 *
 * SIGTERM, SIGINT and SIGHUP end a process without its `exit` event when nothing handles them
 * (`serve`, a sign-in that waits for the browser), so each deletes the held files too
 * (SECURITY.md, docs/sign-in.md#sign-in-lock). When no other handler of the signal is there, the
 * signal is then raised again without ours, so the process ends as it would have.
 */
const heldFiles = new Map<string, string>();
let exitHook = false;
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

function deleteHeldFiles(): void {
  for (const [held, id] of heldFiles) {
    try {
      if ((JSON.parse(readFileSync(held, 'utf8')) as Partial<Holder>).owner === id) unlinkSync(held);
    } catch {
      // Gone, or taken over and rewritten: not ours to delete.
    }
  }
  heldFiles.clear();
}

function onStopSignal(signal: NodeJS.Signals): void {
  deleteHeldFiles();
  if (process.listenerCount(signal) > 1) return; // another handler stops the process its way
  for (const name of STOP_SIGNALS) process.off(name, onStopSignal);
  exitHook = false;
  process.kill(process.pid, signal);
}

function releaseAtExit(file: string, owner: string): void {
  heldFiles.set(file, owner);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', deleteHeldFiles);
  for (const name of STOP_SIGNALS) process.on(name, onStopSignal);
}

/** True when `pid` names a live process on this host (EPERM: it exists but is not ours). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return code(error) === 'EPERM';
  }
}

/** Creates `file` exclusively; false when it exists (Windows: also while a deletion is pending). */
async function create(file: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (error) {
    if (code(error) === 'EEXIST' || (process.platform === 'win32' && code(error) === 'EPERM')) return false;
    // The directory went away while we waited (logout --all): make it again and retry.
    if (code(error) === 'ENOENT') {
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      return false;
    }
    throw error;
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return true;
}

export function createFileLock(options: FileLockOptions): SignInLock {
  const staleMs = options.staleMs ?? 10_000;
  const heartbeatMs = options.heartbeatMs ?? 1_000;
  const pollMs = options.pollMs ?? 100;
  const logger = options.logger ?? silentLogger;
  const host = hostname();
  const local = createProcessLock();
  let fallbackWarned = false;

  /** Why the lock in `file` may be taken over, or undefined while its holder lives. */
  async function staleness(file: string): Promise<string | undefined> {
    const info = await stat(file).catch(() => undefined);
    if (info === undefined) return undefined;
    if (Date.now() - info.mtimeMs > staleMs) return 'its heartbeat stopped';
    const holder = await readHolder(file);
    if (holder !== undefined && holder.host === host && holder.pid !== process.pid && !alive(holder.pid))
      return `its process ${holder.pid} ended`;
    return undefined;
  }

  /** Deletes a stale lock, judged again under the `.break` file so only one waiter does it. */
  async function breakLock(file: string): Promise<void> {
    const breaker = `${file}.break`;
    if (!(await create(breaker, String(process.pid)))) {
      // A breaker that crashed within its few milliseconds leaves the file behind: clear it late.
      const info = await stat(breaker).catch(() => undefined);
      if (info !== undefined && Date.now() - info.mtimeMs > staleMs)
        await unlink(breaker).catch(() => undefined);
      return;
    }
    try {
      const why = await staleness(file);
      if (why === undefined) return;
      await unlink(file).catch((error: unknown) => {
        if (code(error) !== 'ENOENT') throw error;
      });
      logger.log(STORE_SCOPE, 'warn', `the sign-in lock of another bridge process is taken over: ${why}`);
    } finally {
      await unlink(breaker).catch(() => undefined);
    }
  }

  /**
   * Runs `judge` while holding the `.break` file of `file`, which a waiter must hold to delete a
   * stale lock (breakLock): no takeover can happen between the judgement and what follows it.
   */
  async function underBreaker<T>(file: string, judge: () => Promise<T>): Promise<T> {
    const breaker = `${file}.break`;
    while (!(await create(breaker, String(process.pid)))) {
      // A waiter judges the lock right now; a breaker that crashed leaves the file: clear it late.
      const info = await stat(breaker).catch(() => undefined);
      if (info !== undefined && Date.now() - info.mtimeMs > staleMs)
        await unlink(breaker).catch(() => undefined);
      else await sleep(pollMs * (0.5 + Math.random()), undefined);
    }
    try {
      return await judge();
    } finally {
      await unlink(breaker).catch(() => undefined);
    }
  }

  async function acquire(file: string, holder: Holder, signal: AbortSignal | undefined): Promise<void> {
    const content = JSON.stringify(holder);
    let waiting = false;
    for (;;) {
      signal?.throwIfAborted();
      if (await create(file, content)) return;
      if ((await staleness(file)) !== undefined) await breakLock(file);
      else {
        // Once per wait, before its first poll: the user sees why the request waits, and tests
        // wait for this line instead of a pause (docs/sign-in.md#sign-in-lock).
        if (!waiting) logger.log(STORE_SCOPE, 'info', 'waits for the sign-in of another bridge process');
        waiting = true;
        await sleep(pollMs * (0.5 + Math.random()), signal);
      }
    }
  }

  async function holdAcrossProcesses<T>(
    key: RecordKey,
    work: (held: LockHold) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const file = path.join(options.directory, `${recordId(key)}.lock`);
    try {
      await mkdir(options.directory, { recursive: true, mode: 0o700 });
    } catch (error) {
      // Without a lock directory the processes sign in alone, as with the memory store.
      if (!fallbackWarned)
        logger.log(STORE_SCOPE, 'warn', `the sign-in lock works within this process only: ${reason(error)}`);
      fallbackWarned = true;
      return work(steadyHold());
    }
    const holder: Holder = { pid: process.pid, host, owner: randomBytes(16).toString('hex') };
    await acquire(file, holder, signal);
    releaseAtExit(file, holder.owner);
    let released = false;
    const lost = new AbortController();
    const markLost = (): void => {
      if (lost.signal.aborted) return;
      logger.log(
        STORE_SCOPE,
        'warn',
        'the sign-in lock of this process was taken over by another bridge process',
      );
      lost.abort(new LockLostError());
    };
    /** True while the file holds our owner id; renews the heartbeat then. */
    const check = async (): Promise<boolean> => {
      const current = await readHolder(file);
      // `released`: a beat that was under way when the work ended sees the file gone; not a takeover.
      if (released) return true;
      if (current?.owner !== holder.owner) {
        markLost();
        return false;
      }
      const now = new Date();
      await utimes(file, now, now).catch(() => undefined);
      return true;
    };
    const beat = async (): Promise<void> => {
      if (!lost.signal.aborted && !released) await check();
    };
    const held: LockHold = {
      signal: lost.signal,
      // Under the breaker: a waiter that judged our heartbeat stale (we stalled) cannot delete
      // the lock between this check and the refresh that follows it.
      confirm: async () => {
        if (lost.signal.aborted || !(await underBreaker(file, check))) throw new LockLostError();
      },
    };
    const timer = setInterval(() => void beat(), heartbeatMs);
    timer.unref();
    try {
      return await work(held);
    } finally {
      released = true;
      heldFiles.delete(file);
      clearInterval(timer);
      if ((await readHolder(file))?.owner === holder.owner) await unlink(file).catch(() => undefined);
    }
  }

  return {
    hold: (key, work, holdOptions) =>
      local.hold(key, () => holdAcrossProcesses(key, work, holdOptions?.signal)),
  };
}
