/**
 * The secret file of the shared process (src/edges/sharedSocket/secret.ts,
 * docs/shared.md#shared-secret): written exclusively with mode 0600, read and replaced only when it
 * is a regular file of the user with that mode, removed only while it is the one written, and
 * compared in constant time. The file of another owner needs root (chown).
 */
import { chmodSync, chownSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  newSharedSecret,
  publishSharedSecret,
  readSharedSecret,
  removeStaleSecret,
  secretMatches,
} from '../../../src/edges/sharedSocket/secret.js';

const uid = process.getuid?.() ?? 0;
const SECRET = '0123456789abcdef'.repeat(4);
let dir = '';
let path = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'shared-secret-'));
  path = join(dir, 'shared.secret');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(process.platform === 'win32')('the secret file', () => {
  it('is written with mode 0600 and read back; a new one replaces a stale one of the user', () => {
    const first = publishSharedSecret(dir, uid, SECRET);
    expect(first.ok).toBe(true);
    expect([lstatSync(path).mode & 0o777, readFileSync(path, 'utf8')]).toEqual([0o600, SECRET]);
    expect(readSharedSecret(dir, uid)).toEqual({ kind: 'secret', secret: SECRET });
    const next = newSharedSecret();
    expect(publishSharedSecret(dir, uid, next).ok).toBe(true);
    expect(readSharedSecret(dir, uid)).toEqual({ kind: 'secret', secret: next });
    // The first process's end does not remove the file of the next one.
    if (first.ok) first.remove();
    expect(readFileSync(path, 'utf8')).toBe(next);
  });

  it('is absent when there is none, or while it is being written', () => {
    expect(readSharedSecret(dir, uid)).toEqual({ kind: 'absent' });
    writeFileSync(path, '', { mode: 0o600 });
    expect(readSharedSecret(dir, uid)).toEqual({ kind: 'absent' });
  });

  it('refuses and leaves a symbolic link or a file of another mode', () => {
    const target = join(dir, 'target');
    writeFileSync(target, SECRET, { mode: 0o600 });
    symlinkSync(target, path);
    const link = { code: 'shared_secret_unsafe', message: `${path} is a symbolic link` };
    expect(readSharedSecret(dir, uid)).toEqual({ kind: 'refused', refusal: link });
    expect(publishSharedSecret(dir, uid, newSharedSecret())).toEqual({ ok: false, refusal: link });
    removeStaleSecret(dir, uid);
    expect([lstatSync(path).isSymbolicLink(), readFileSync(target, 'utf8')]).toEqual([true, SECRET]);

    rmSync(path);
    writeFileSync(path, SECRET);
    chmodSync(path, 0o644);
    const mode = { code: 'shared_secret_unsafe', message: `${path} has mode 644, not 600` };
    expect(readSharedSecret(dir, uid)).toEqual({ kind: 'refused', refusal: mode });
    expect(publishSharedSecret(dir, uid, newSharedSecret())).toEqual({ ok: false, refusal: mode });
    expect(readFileSync(path, 'utf8')).toBe(SECRET);
  });

  it.skipIf(uid !== 0)('refuses and leaves a file of another user', () => {
    writeFileSync(path, SECRET, { mode: 0o600 });
    chownSync(path, 65534, 65534);
    const owner = { code: 'shared_secret_unsafe', message: `${path} is owned by uid 65534, not 0` };
    expect(readSharedSecret(dir, uid)).toEqual({ kind: 'refused', refusal: owner });
    expect(publishSharedSecret(dir, uid, newSharedSecret())).toEqual({ ok: false, refusal: owner });
    removeStaleSecret(dir, uid);
    expect([lstatSync(path).uid, readFileSync(path, 'utf8')]).toEqual([65534, SECRET]);
  });
});

describe('secretMatches', () => {
  it('takes the secret only', () => {
    expect(secretMatches(SECRET, SECRET)).toBe(true);
    expect(secretMatches(SECRET.replace('0', '1'), SECRET)).toBe(false);
    expect(secretMatches(SECRET.slice(1), SECRET)).toBe(false);
    expect(secretMatches(undefined, SECRET)).toBe(false);
    expect(secretMatches(42, SECRET)).toBe(false);
  });

  it('makes 64 hex digits, a new value each time', () => {
    const one = newSharedSecret();
    expect(one).toMatch(/^[0-9a-f]{64}$/);
    expect(newSharedSecret()).not.toBe(one);
  });
});
