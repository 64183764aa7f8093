/**
 * Reads and writes a client's file for `add` (docs/install.md#install-add). A link is followed
 * to its target (a dotfile manager's link stays a link). The file must be a regular file of at
 * most MAX_CONFIG_BYTES. The new text goes to a temporary file beside it, created exclusively
 * with the old file's mode (0600 for a new file of the user scope), and is renamed over it: a
 * reader sees the old file or the new one, never half of one.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The largest client file `add` reads: more is not a settings file. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

export type ReadResult =
  | { readonly kind: 'text'; readonly path: string; readonly text: string; readonly mode?: number }
  | { readonly kind: 'error'; readonly message: string };

const BOM = '\uFEFF';

const code = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;

/** The text of `file` (empty when it does not exist), and the path to write back to. */
export async function readConfig(file: string): Promise<ReadResult> {
  let path = file;
  try {
    if ((await lstat(file)).isSymbolicLink()) path = await realpath(file);
    const info = await stat(path);
    if (!info.isFile()) return { kind: 'error', message: `${file} is not a regular file` };
    if (info.size > MAX_CONFIG_BYTES) {
      return { kind: 'error', message: `${file} is larger than ${MAX_CONFIG_BYTES} bytes` };
    }
    const text = await readFile(path, 'utf8');
    return { kind: 'text', path, text: text.startsWith(BOM) ? text.slice(1) : text, mode: info.mode & 0o777 };
  } catch (error) {
    if (code(error) === 'ENOENT' && path === file) return { kind: 'text', path, text: '' };
    return { kind: 'error', message: `${file} cannot be read (${code(error) ?? 'error'})` };
  }
}

/** Writes `text` to `path` through a temporary file and a rename. */
export async function writeConfig(path: string, text: string, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    await handle.close();
    await rename(temporary, path);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}
