/**
 * The encryption of the token files (docs/sign-in.md#sign-in-stores):
 * AES-256-GCM with the 32-byte token key, a fresh random 12-byte IV per write, and the record's
 * hashed name as additional authenticated data, so that a file copied or moved to another name no
 * longer decrypts. Layout: version byte (1) | IV (12) | ciphertext | tag (16).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open as openFile, realpath } from 'node:fs/promises';
import path from 'node:path';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The associated data of a file: the format and the record's hashed name. */
const aad = (name: string): Buffer => Buffer.from(`mcp-bridge-sdk token file v${VERSION}\n${name}`);

export function seal(key: Buffer, name: string, plaintext: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(name));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, body, cipher.getAuthTag()]);
}

/** The plaintext, or undefined when the data is short, of another version, altered or sealed with another key or name. */
export function open(key: Buffer, name: string, data: Buffer): string | undefined {
  if (data.length < 1 + IV_BYTES + TAG_BYTES || data[0] !== VERSION) return undefined;
  const iv = data.subarray(1, 1 + IV_BYTES);
  const tag = data.subarray(data.length - TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(name));
    decipher.setAuthTag(tag);
    const body = data.subarray(1 + IV_BYTES, data.length - TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/** A token key text (64 hex digits, surrounding white space ignored) as 32 bytes, or undefined. */
export function parseTokenKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  return HEX_KEY.test(trimmed) ? Buffer.from(trimmed, 'hex') : undefined;
}

const inside = (dir: string, file: string): boolean => {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

const realOrResolved = async (p: string): Promise<string> => {
  try {
    return await realpath(p);
  } catch {
    return path.resolve(p);
  }
};

/**
 * Reads `--token-key-file` (docs/sign-in.md#sign-in-stores, docs/sign-in.md#sign-in-trigger): a regular file private to the user (on POSIX: owned by
 * the user, no group or other permission bits; Windows ACLs are not checked, as that needs native
 * code), outside the token directory (a key next to the files it protects protects nothing), and
 * holding 64 hex digits. Rejects with a message that names the file, never its content.
 */
export async function loadKeyFile(
  file: string,
  tokenDir: string,
  platform: NodeJS.Platform,
): Promise<Buffer> {
  // One open file for the checks and the read: a path swapped between a check and the read (a
  // symlink in a directory another user can write) cannot give the bridge another key. The open
  // never blocks (O_NONBLOCK; Windows has no FIFOs and no such flag): a FIFO opens at once and
  // is refused as "not a file" below, instead of waiting for a writer.
  const nonBlocking = (constants as { O_NONBLOCK?: number }).O_NONBLOCK ?? 0;
  const handle = await openFile(file, constants.O_RDONLY | nonBlocking).catch((error: unknown) => {
    throw new Error(
      `the token key file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  });
  let text: string;
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`the token key file ${file} is not a file`);
    if (platform !== 'win32') {
      if ((info.mode & 0o077) !== 0)
        throw new Error(
          `the token key file ${file} is open to other users: make it private to you (chmod 600)`,
        );
      if (process.getuid !== undefined && info.uid !== process.getuid())
        throw new Error(`the token key file ${file} belongs to another user`);
    }
    if (inside(await realOrResolved(tokenDir), await realOrResolved(file)))
      throw new Error(`the token key file ${file} is inside the token directory: keep it elsewhere`);
    text = await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
  const key = parseTokenKey(text);
  if (key === undefined) throw new Error(`the token key file ${file} does not hold 64 hex digits`);
  return key;
}
