/**
 * The file options (`--ca-file`, `--token-key-file`) name regular files only: a FIFO blocks the
 * open until a writer comes and a device never ends, so either would hang the start. The path
 * is looked at with stat, never opened, and a path that exists but is not a regular file is exit
 * code 2 at once (SECURITY.md, requirement 4). A path that does not exist is left to the reader,
 * which names its error.
 */
import { constants, statSync } from 'node:fs';

/** Why `path` is not usable as a regular file, or undefined (a regular file, or no such path). */
export function notRegularFile(path: string): string | undefined {
  const info = statSync(path, { throwIfNoEntry: false });
  if (info === undefined || info.isFile()) return undefined;
  if (info.isDirectory()) return 'it names a directory, not a regular file';
  if (info.isFIFO()) return 'it names a pipe (FIFO), not a regular file';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'it names a device, not a regular file';
  if (info.isSocket()) return 'it names a socket, not a regular file';
  return 'it does not name a regular file';
}

/**
 * The flags of an open for reading that never blocks: a path swapped for a FIFO after the stat
 * still opens at once (O_NONBLOCK; Windows has no FIFOs and no such flag), and the reader then
 * refuses it by fstat.
 */
export const READ_NONBLOCK = constants.O_RDONLY | ((constants as { O_NONBLOCK?: number }).O_NONBLOCK ?? 0);
