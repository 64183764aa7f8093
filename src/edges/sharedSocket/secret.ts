/**
 * The secret of the shared process (docs/shared.md#shared-secret): a second barrier against another
 * local user that does not depend on the directory, and the only one for the Windows named pipe.
 * The shared process writes 32 random bytes (hex) to `shared.secret` beside the socket, created
 * exclusively with mode 0600; every hello must carry them. A file there is checked with `lstat`
 * before it is used, in the style of socketPlace.ts: a regular file (not a symbolic link) of the
 * user, mode 0600; anything else is refused, never read nor removed. The value is never logged.
 * Node built-ins only: the shim loads this before anything heavy.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { readFileSync, unlinkSync, writeSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { lstatOrUndefined, pathProblem } from './socketPlace.js';
import type { SocketPlaceRefusal } from './socketPlace.js';

/** The file's name, in the socket's directory. */
export const SECRET_FILE = 'shared.secret';
/** Owner and mode mean nothing on Windows: the file is in the user's own temporary directory there. */
const POSIX = process.platform !== 'win32';
/** Not followed: a symbolic link at the path fails the open (0 where the platform has no such flag). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const SECRET_TEXT = /^[0-9a-f]{64}$/;

/** What a shim found at the secret's path. */
export type SecretRead =
  | { readonly kind: 'secret'; readonly secret: string }
  /** No secret yet: the shared process is starting (or stopping); try again. */
  | { readonly kind: 'absent' }
  | { readonly kind: 'refused'; readonly refusal: SocketPlaceRefusal };

/** A fresh secret: 32 random bytes in hex. */
export const newSharedSecret = (): string => randomBytes(32).toString('hex');

/** Whether `given` (a hello's, unchecked) is the secret, compared in constant time. */
export function secretMatches(given: unknown, secret: string): boolean {
  if (typeof given !== 'string') return false;
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(secret));
}

/** Why a file at the secret's path is not the user's secret, or undefined when it is. */
const secretCheck = (stat: Stats, uid: number): string | undefined =>
  pathProblem(stat, uid, { kind: 'file', mode: 0o600, posix: POSIX });

const refusal = (path: string, problem: string): SocketPlaceRefusal => ({
  code: 'shared_secret_unsafe',
  message: `${path} ${problem}`,
});

/** Reads the secret in `dir`, with the checks; a file being written counts as absent. */
export function readSharedSecret(dir: string, uid: number): SecretRead {
  const path = join(dir, SECRET_FILE);
  const stat = lstatOrUndefined(path);
  if (stat === undefined) return { kind: 'absent' };
  const problem = secretCheck(stat, uid);
  if (problem !== undefined) return { kind: 'refused', refusal: refusal(path, problem) };
  let text: string;
  try {
    const fd = openSync(path, constants.O_RDONLY | NO_FOLLOW);
    try {
      // The file opened is the one checked, not one put in its place since.
      if (POSIX && fstatSync(fd).ino !== stat.ino) return { kind: 'absent' };
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return { kind: 'absent' };
  }
  return SECRET_TEXT.test(text) ? { kind: 'secret', secret: text } : { kind: 'absent' };
}

/** Removes the secret in `dir` when it is a file of the user (a stale one); anything else stays. */
export function removeStaleSecret(dir: string, uid: number): void {
  const path = join(dir, SECRET_FILE);
  const stat = lstatOrUndefined(path);
  if (stat === undefined || secretCheck(stat, uid) !== undefined) return;
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

/**
 * Writes `secret` to `dir` for the shims: a file of the user left there before is replaced; a
 * file that is not (planted) is refused and left. The file is created exclusively (never one put
 * in its place), mode 0600, and checked again. `remove` takes it away at the end, only while it
 * still holds this secret.
 */
export function publishSharedSecret(
  dir: string,
  uid: number,
  secret: string,
):
  | { readonly ok: true; readonly remove: () => void }
  | { readonly ok: false; readonly refusal: SocketPlaceRefusal } {
  const path = join(dir, SECRET_FILE);
  const before = lstatOrUndefined(path);
  const problem = before === undefined ? undefined : secretCheck(before, uid);
  if (problem !== undefined) return { ok: false, refusal: refusal(path, problem) };
  try {
    // Windows: the temporary directory of the place is not made by the socket's checks.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (before !== undefined) unlinkSync(path);
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
    try {
      if (POSIX) fchmodSync(fd, 0o600);
      writeSync(fd, secret);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return { ok: false, refusal: refusal(path, `cannot be written: ${(error as Error).message}`) };
  }
  const after = secretCheck(lstatSync(path), uid);
  if (after !== undefined) return { ok: false, refusal: refusal(path, after) };
  return {
    ok: true,
    remove: () => {
      // By its value, not its inode: a file made after this one's removal may get the same number.
      const now = readSharedSecret(dir, uid);
      if (now.kind !== 'secret' || !secretMatches(now.secret, secret)) return;
      try {
        unlinkSync(path);
      } catch {
        // Gone already.
      }
    },
  };
}
