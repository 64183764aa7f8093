/**
 * The files of the grants without a person (docs/sign-in.md#sign-in-grants): the private key of
 * `--client-key-file` and the platform's JWT of `--assertion-file`. One open for the checks and the
 * read, never blocking (a path swapped for a FIFO still opens at once and is refused by fstat, as
 * `--token-key-file` is: SECURITY.md "Grants without a person"). Errors name the option and the
 * reason, never the contents.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { BridgeError } from '../../protocol/bridgeError.js';

/** Larger than any PEM key or JWT the bridge reads; bounds what a wrong path can make it read. */
export const CREDENTIAL_FILE_MAX_BYTES = 64 * 1024;

export interface CredentialFile {
  /** The option that names the file, for the message: `--client-key-file`. */
  readonly option: string;
  readonly path: string;
  /**
   * True for a long-lived secret (the client key): refused when other users may read it, as the
   * token key file is. A platform's assertion file is short-lived and often group-readable
   * (Kubernetes projects it 0644), so it is not.
   */
  readonly privateToOwner: boolean;
}

const failed = (file: CredentialFile, why: string): BridgeError =>
  new BridgeError('sign_in_failed', { detail: `the file of ${file.option} ${why}` });

const codeOf = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : 'error';
};

/**
 * The text of the file, trimmed: a regular file, of this user or of root (only root could have
 * written a file root owns), private to its owner when `privateToOwner`, not empty, at most
 * {@link CREDENTIAL_FILE_MAX_BYTES}.
 */
export async function readCredentialFile(
  file: CredentialFile,
  platform: NodeJS.Platform = process.platform,
): Promise<string> {
  const nonBlocking = (constants as { O_NONBLOCK?: number }).O_NONBLOCK ?? 0;
  const handle = await open(file.path, constants.O_RDONLY | nonBlocking).catch((error: unknown) => {
    throw failed(file, `cannot be read (${codeOf(error)})`);
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw failed(file, 'is not a regular file');
    if (platform !== 'win32') {
      const uid = process.getuid?.();
      if (uid !== undefined && info.uid !== uid && info.uid !== 0)
        throw failed(file, 'belongs to another user');
      if (file.privateToOwner && (info.mode & 0o077) !== 0) {
        throw failed(file, 'is open to other users: make it private to you (chmod 600)');
      }
    }
    if (info.size > CREDENTIAL_FILE_MAX_BYTES) {
      throw failed(file, `is larger than ${CREDENTIAL_FILE_MAX_BYTES} bytes`);
    }
    const buffer = Buffer.alloc(CREDENTIAL_FILE_MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > CREDENTIAL_FILE_MAX_BYTES) {
      throw failed(file, `is larger than ${CREDENTIAL_FILE_MAX_BYTES} bytes`);
    }
    const text = buffer.subarray(0, bytesRead).toString('utf8').trim();
    buffer.fill(0);
    if (text === '') throw failed(file, 'is empty');
    return text;
  } catch (error) {
    throw error instanceof BridgeError ? error : failed(file, `cannot be read (${codeOf(error)})`);
  } finally {
    await handle.close();
  }
}
