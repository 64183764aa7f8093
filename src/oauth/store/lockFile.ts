/**
 * The sign-in lock's file and who owns it: `<dir>/<sha256(url, identity)>.lock` is created with
 * `open(…, 'wx')` (exclusive create, atomic on every platform and on local file systems) and holds
 * `{ pid, host, owner }`, `owner` a random id of one hold. Only the hold whose owner id the file
 * holds may delete it: after a takeover it belongs to another process (docs/sign-in.md#sign-in-lock).
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../ports/logger.js';

/** What a lock file holds. */
export interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly owner: string;
}

/** The settings of one file lock, defaults applied (lock.ts). */
export interface LockRules {
  readonly staleMs: number;
  readonly heartbeatMs: number;
  readonly pollMs: number;
  readonly logger: Logger;
  /** This host's name: a holder's pid means something only on its own host. */
  readonly host: string;
}

export const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/** The holder written in `file`, or undefined when it is absent or not (yet) written. */
export async function readHolder(file: string): Promise<Holder | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<Holder>;
    return typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.owner === 'string'
      ? (value as Holder)
      : undefined;
  } catch {
    return undefined; // absent, or created but not yet written: judged by its mtime alone
  }
}

/** Creates `file` exclusively; false when it exists (Windows: also while a deletion is pending). */
export async function createExclusive(file: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST' || (process.platform === 'win32' && code === 'EPERM')) return false;
    // The directory went away while we waited (logout --all): make it again and retry.
    if (code === 'ENOENT') {
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

/** Deletes `file` while it holds `owner`; a file taken over by another process stays. */
export async function deleteIfOwned(file: string, owner: string): Promise<void> {
  if ((await readHolder(file))?.owner === owner) await unlink(file).catch(() => undefined);
}

/** deleteIfOwned for the `exit` event, where nothing asynchronous runs any more. */
export function deleteIfOwnedSync(file: string, owner: string): void {
  try {
    if ((JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>).owner === owner) unlinkSync(file);
  } catch {
    // Gone, or taken over and rewritten: not ours to delete.
  }
}
