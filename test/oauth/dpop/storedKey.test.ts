/**
 * The DPoP key of a sign-in in the encrypted file store (docs/sign-in.md#sign-in-dpop): read back
 * whole after a reopen (a restart), and never in clear in any file.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newDpopKey } from '../../../src/oauth/dpop/key.js';
import { openFileBackend } from '../../../src/oauth/store/fileStore.js';
import { createIndexedStore } from '../../../src/oauth/store/index.js';
import { parseRecord } from '../../../src/oauth/store/record.js';
import type { TokenStore } from '../../../src/oauth/store/types.js';
import { KEY_A, makeRecord, recordingLogger, tempDir } from '../storeTestKit.js';

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  dir = path.join(dir, 'tokens');
});
afterEach(() => cleanup());

const openStore = async (): Promise<TokenStore> => {
  const logger = recordingLogger();
  return createIndexedStore(
    await openFileBackend(
      { directory: dir, key: Buffer.from(KEY_A, 'hex'), platform: process.platform },
      logger,
    ),
    logger,
  );
};

describe('the stored DPoP key', () => {
  it('comes back after a reopen and is in no file in clear', async () => {
    const dpopKey = newDpopKey('ES256');
    const record = { ...makeRecord(), tokenType: 'DPoP', dpopKey };
    await (await openStore()).write(record);
    expect(await (await openStore()).read(record)).toEqual(record);
    const secrets = [dpopKey.jwk.d ?? 'missing d', dpopKey.jwk.x ?? 'missing x'];
    for (const name of await readdir(dir)) {
      const text = (await readFile(path.join(dir, name))).toString('latin1');
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });

  it('refuses a record whose DPoP key has an unknown algorithm', () => {
    expect(parseRecord({ ...makeRecord(), dpopKey: { alg: 'HS256', jwk: {} } })).toBeUndefined();
    expect(parseRecord({ ...makeRecord(), dpopKey: { alg: 'ES256', jwk: { kty: 'EC' } } })).toBeDefined();
  });
});
