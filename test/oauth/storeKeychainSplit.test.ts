/**
 * The keychain store on Windows splits a long record into entries of 1000 characters, because
 * Windows Credential Manager holds at most 1280 UTF-16 characters per credential (a fake keyring
 * with that limit stands in for it).
 */
import { describe, expect, it } from 'vitest';
import { createIndexedStore } from '../../src/oauth/store/index.js';
import { openKeychainBackend } from '../../src/oauth/store/keychainStore.js';
import { fakeKeyring, makeRecord, recordingLogger } from './storeTestKit.js';

const SERVICE = 'mcp-bridge-sdk/mcp-bridge-vscode';
const LONG_TOKEN = `eyJ${'a'.repeat(2_997)}`;

const entriesOf = (secrets: Map<string, string>): string[] =>
  [...secrets.keys()].map((name) => name.slice(SERVICE.length + 1)).sort();

describe('keychain store on Windows', () => {
  it('keeps a 3000-character token in entries of at most 1280 characters, and reads it back', async () => {
    const keyring = fakeKeyring({ maxChars: 1_280 });
    const backend = await openKeychainBackend({
      service: SERVICE,
      platform: 'win32',
      loadKeyring: keyring.module,
    });
    const store = createIndexedStore(backend, recordingLogger());
    await store.write(makeRecord({ accessToken: LONG_TOKEN }));
    expect((await store.read(makeRecord()))?.accessToken).toBe(LONG_TOKEN);
    const names = entriesOf(keyring.secrets).filter((name) => name.includes('.'));
    expect(names.map((name) => name.slice(65))).toEqual(['1', '2', '3']);
    expect(await store.list()).toEqual([{ url: makeRecord().url, identity: makeRecord().identity }]);

    // A shorter record replaces it and leaves no part behind; a delete removes every entry.
    await store.write(makeRecord({ accessToken: 'short', savedAt: 2_000 }));
    expect(entriesOf(keyring.secrets).filter((name) => name.includes('.'))).toEqual([]);
    expect((await store.read(makeRecord()))?.accessToken).toBe('short');
    await store.write(makeRecord({ accessToken: LONG_TOKEN, savedAt: 3_000 }));
    expect(await store.delete(makeRecord())).toBe(true);
    expect(entriesOf(keyring.secrets)).toHaveLength(1); // the index only
  });

  it('elsewhere writes one entry per record (the same limit then refuses a long one)', async () => {
    const keyring = fakeKeyring({ maxChars: 1_280 });
    const backend = await openKeychainBackend({
      service: SERVICE,
      platform: 'darwin',
      loadKeyring: keyring.module,
    });
    await expect(backend.save('a'.repeat(64), makeRecord({ accessToken: LONG_TOKEN }))).rejects.toThrow(
      'the keychain failed: the password is too long',
    );
    await backend.save('b'.repeat(64), makeRecord());
    expect(entriesOf(keyring.secrets)).toEqual(['b'.repeat(64)]);
  });
});
