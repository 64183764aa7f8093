/**
 * Loads the PEM file of `--ca-file` (docs/http-upstream.md#http-client): readable, not empty, and at
 * least one certificate block, each block a valid X.509 certificate. An unusable file is exit
 * code 2; so is a path that is not a regular file (a pipe or a device would hang the start;
 * regularFile.ts). Messages never echo the path or the contents of the file.
 */
import { X509Certificate } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { notRegularFile, READ_NONBLOCK } from './regularFile.js';

export type CaFileResult =
  { readonly ok: true; readonly pem: string } | { readonly ok: false; readonly message: string };

/** Larger than any CA bundle; bounds what a wrong path (a device, a pipe) can make the bridge read. */
export const CA_FILE_MAX_BYTES = 16 * 1024 * 1024;

const BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Thrown for a path that is not a regular file; its message is the reason (no path in it). */
class NotRegular extends Error {}

function readBounded(path: string): Buffer {
  const why = notRegularFile(path);
  if (why !== undefined) throw new NotRegular(why);
  const fd = openSync(path, READ_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new NotRegular('it does not name a regular file');
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const count = readSync(fd, chunk, 0, chunk.length, null);
      if (count === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, count));
      total += count;
      if (total > CA_FILE_MAX_BYTES) throw new RangeError('too large');
    }
  } finally {
    closeSync(fd);
  }
}

const errorCode = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? ` (${code})` : '';
};

export function loadCaFile(path: string): CaFileResult {
  const fail = (reason: string): CaFileResult => ({
    ok: false,
    message: `cannot use the CA certificates of --ca-file: ${reason}`,
  });
  let pem: string;
  try {
    pem = readBounded(path).toString('utf8');
  } catch (error) {
    if (error instanceof RangeError) return fail(`the file is larger than ${CA_FILE_MAX_BYTES} bytes`);
    if (error instanceof NotRegular) return fail(error.message);
    return fail(`the file cannot be read${errorCode(error)}`);
  }
  if (pem.trim() === '') return fail('the file is empty');
  const blocks = pem.match(BLOCK) ?? [];
  if (blocks.length === 0) return fail('the file holds no PEM certificate ("-----BEGIN CERTIFICATE-----")');
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return fail(`certificate ${index + 1} of the file is not a valid X.509 certificate`);
    }
  }
  return { ok: true, pem };
}
