/**
 * The encrypted file store (docs/sign-in.md#sign-in-stores): one file
 * `<sha256(url, identity)>.token` per record in a 0700 directory, each 0600, sealed with
 * AES-256-GCM (crypto.ts). Writes go to a temporary file in the same directory, are flushed and
 * then renamed over the old file, so a reader sees the old record or the new one, never a mix.
 * A `key-check` file sealed with the key tells a wrong key (open fails, nothing is deleted) from
 * one damaged file (refused, logged by name, treated as no record).
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open as openFile, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../ports/logger.js';
import type { RecordBackend } from './backend.js';
import { open, seal } from './crypto.js';
import { STORE_SCOPE } from './record.js';

const SUFFIX = '.token';
const KEY_CHECK = 'key-check';
const KEY_CHECK_TEXT = 'mcp-bridge-sdk token key check';
/** A temporary file older than this was left by a process that stopped mid-write. */
const STALE_TEMP_MS = 60_000;

export interface FileStoreOptions {
  readonly directory: string;
  readonly key: Buffer;
  readonly platform: NodeJS.Platform;
}

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/** Flushes a directory entry change (POSIX; Windows cannot open a directory, and needs no flush). */
async function syncDirectory(dir: string, platform: NodeJS.Platform): Promise<void> {
  if (platform === 'win32') return;
  const handle = await openFile(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Windows refuses a rename over a file another process reads at that moment: retry briefly. */
async function renameOver(from: string, to: string, platform: NodeJS.Platform): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await rename(from, to);
      return;
    } catch (error) {
      const busy = code(error) === 'EPERM' || code(error) === 'EBUSY' || code(error) === 'EACCES';
      if (platform !== 'win32' || !busy || attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * (attempt + 1)));
    }
  }
}

/** Writes `data` to `file` atomically: temporary file (0600, exclusive), fsync, rename, directory fsync. */
async function writeAtomic(
  dir: string,
  file: string,
  data: Buffer,
  platform: NodeJS.Platform,
): Promise<void> {
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await openFile(temp, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await renameOver(temp, file, platform);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir, platform);
}

/** Creates the directory 0700 (and makes an existing one 0700), checks the key, clears stale temp files. */
async function prepare(options: FileStoreOptions): Promise<void> {
  const { directory, key, platform } = options;
  await mkdir(directory, { recursive: true, mode: 0o700 });
  if (platform !== 'win32') {
    const info = await stat(directory);
    if (process.getuid !== undefined && info.uid !== process.getuid())
      throw new Error(`the token directory ${directory} belongs to another user`);
    if ((info.mode & 0o777) !== 0o700) await chmod(directory, 0o700);
  }
  const checkFile = path.join(directory, KEY_CHECK);
  const sealed = await readFile(checkFile).catch((error: unknown) => {
    if (code(error) === 'ENOENT') return undefined;
    throw error;
  });
  if (sealed === undefined) {
    await writeAtomic(directory, checkFile, seal(key, KEY_CHECK, KEY_CHECK_TEXT), platform);
  } else if (open(key, KEY_CHECK, sealed) !== KEY_CHECK_TEXT) {
    throw new Error(
      `the token key does not open the files in ${directory}: they were written with another key (nothing was deleted)`,
    );
  }
  const now = Date.now();
  for (const entry of await readdir(directory)) {
    if (!entry.endsWith('.tmp')) continue;
    const temp = path.join(directory, entry);
    const info = await stat(temp).catch(() => undefined);
    if (info !== undefined && now - info.mtimeMs > STALE_TEMP_MS) await unlink(temp).catch(() => undefined);
  }
}

/** Opens the file store; rejects (with a message for the start line or exit 2) when it cannot. */
export async function openFileBackend(options: FileStoreOptions, logger: Logger): Promise<RecordBackend> {
  await prepare(options);
  const { directory, key, platform } = options;
  const fileOf = (name: string): string => path.join(directory, `${name}${SUFFIX}`);
  return {
    kind: 'file',
    description: `the tokens are in encrypted files in ${directory}`,
    async load(name) {
      const file = fileOf(name);
      const data = await readFile(file).catch((error: unknown) => {
        if (code(error) === 'ENOENT') return undefined;
        throw error;
      });
      if (data === undefined) return undefined;
      const text = open(key, name, data);
      let value: unknown;
      try {
        value = text === undefined ? undefined : JSON.parse(text);
      } catch {
        value = undefined;
      }
      if (value === undefined)
        // Name the file, never its content ("refused and reported").
        logger.log(
          STORE_SCOPE,
          'warn',
          `the token file ${file} is truncated, altered or not the file of its name: it is ignored`,
        );
      return value;
    },
    save: (name, value) =>
      writeAtomic(directory, fileOf(name), seal(key, name, JSON.stringify(value)), platform),
    async remove(name) {
      try {
        await unlink(fileOf(name));
        return true;
      } catch (error) {
        if (code(error) === 'ENOENT') return false;
        throw error;
      }
    },
    async names() {
      const entries = await readdir(directory);
      return entries
        .filter((entry) => entry.endsWith(SUFFIX) && !entry.startsWith('.'))
        .map((entry) => entry.slice(0, -SUFFIX.length));
    },
  };
}
