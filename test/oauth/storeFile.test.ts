/**
 * The encrypted file store (docs/sign-in.md#sign-in-stores): encryption, modes, atomic replace, wrong key, damaged and moved files.
 */
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openFileBackend } from '../../src/oauth/store/fileStore.js';
import { createIndexedStore } from '../../src/oauth/store/index.js';
import type { TokenRecord, TokenStore } from '../../src/oauth/store/types.js';
import { KEY_A, KEY_B, makeRecord, recordingLogger, tempDir, type RecordingLogger } from './storeTestKit.js';

const platform = process.platform;
let dir: string;
let cleanup: () => Promise<void>;
let logger: RecordingLogger;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  dir = path.join(dir, 'tokens');
  logger = recordingLogger();
});
afterEach(() => cleanup());

const openStore = async (key = KEY_A): Promise<TokenStore> =>
  createIndexedStore(
    await openFileBackend({ directory: dir, key: Buffer.from(key, 'hex'), platform }, logger),
    logger,
  );

/** The file of a record: the SHA-256 of url, newline, identity, in hex, with `.token` (never the URL). */
const fileOf = (record: TokenRecord): string =>
  path.join(dir, `${createHash('sha256').update(`${record.url}\n${record.identity}`).digest('hex')}.token`);

const PROBE = makeRecord({ url: 'https://probe.example.test/mcp', savedAt: 5 });

/** Writes the probe record and returns its file. */
async function recordFile(store: TokenStore): Promise<string> {
  await store.write(PROBE);
  await stat(fileOf(PROBE));
  return fileOf(PROBE);
}

describe('file store', () => {
  it('keeps no token, URL or identity in clear text in any file', async () => {
    const store = await openStore();
    await store.write(makeRecord());
    expect(await store.read(makeRecord())).toEqual(makeRecord());
    const files = await readdir(dir);
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const name of files) {
      expect(name).not.toContain('mcp.example.test');
      const bytes = await readFile(path.join(dir, name));
      for (const text of [
        'access-token-9f3b2c',
        'refresh-token-7e41aa',
        'url-secret-31d7',
        'mcp.example.test',
        '127.0.0.1',
      ]) {
        expect(bytes.includes(Buffer.from(text))).toBe(false);
        expect(bytes.includes(Buffer.from(Buffer.from(text).toString('base64').slice(0, 12)))).toBe(false);
      }
    }
  });

  it('creates the directory 0700 and the files 0600 (Windows has no POSIX modes: Node reports 0666)', async () => {
    const store = await openStore();
    await store.write(makeRecord());
    const [dirMode, fileMode] = platform === 'win32' ? [0o666, 0o666] : [0o700, 0o600];
    expect((await stat(dir)).mode & 0o777).toBe(dirMode);
    for (const name of await readdir(dir))
      expect((await stat(path.join(dir, name))).mode & 0o777).toBe(fileMode);
  });

  it('makes an existing token directory open to others 0700', async () => {
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await chmod(dir, 0o755);
    await openStore();
    expect((await stat(dir)).mode & 0o777).toBe(platform === 'win32' ? 0o666 : 0o700);
  });

  it('starts each file with version byte 1 and uses a new IV for every write', async () => {
    const store = await openStore();
    const file = await recordFile(store);
    const first = await readFile(file);
    await store.write(makeRecord({ url: 'https://probe.example.test/mcp', savedAt: 6 }));
    const second = await readFile(file);
    expect(first[0]).toBe(1);
    expect(second[0]).toBe(1);
    expect(first.subarray(1, 13).equals(second.subarray(1, 13))).toBe(false);
  });

  it('refuses a wrong key with a clear error and deletes nothing', async () => {
    const store = await openStore(KEY_A);
    await store.write(makeRecord());
    const before = await readdir(dir);
    const contents = await Promise.all(before.map((name) => readFile(path.join(dir, name))));
    await expect(openStore(KEY_B)).rejects.toThrow(
      `the token key does not open the files in ${dir}: they were written with another key (nothing was deleted)`,
    );
    expect(await readdir(dir)).toEqual(before);
    const after = await Promise.all(before.map((name) => readFile(path.join(dir, name))));
    expect(after.every((bytes, i) => bytes.equals(contents[i] ?? Buffer.alloc(0)))).toBe(true);
    expect(await (await openStore(KEY_A)).read(makeRecord())).toEqual(makeRecord());
  });

  it('refuses a truncated file, reports it by name without its content, and treats it as no record', async () => {
    const store = await openStore();
    const file = await recordFile(store);
    await truncate(file, 20);
    expect(await store.read(makeRecord({ url: 'https://probe.example.test/mcp' }))).toBeUndefined();
    expect(logger.lines).toEqual([
      `tokens: warn: the token file ${file} is truncated, altered or not the file of its name: it is ignored`,
    ]);
  });

  it('refuses a file with one altered byte', async () => {
    const store = await openStore();
    const file = await recordFile(store);
    const bytes = await readFile(file);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = (bytes[middle] ?? 0) ^ 0x01;
    await writeFile(file, bytes);
    expect(await store.read(makeRecord({ url: 'https://probe.example.test/mcp' }))).toBeUndefined();
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toContain(`the token file ${file} is truncated, altered`);
  });

  it('refuses a record moved to the file name of another record', async () => {
    const store = await openStore();
    const fileA = await recordFile(store);
    const other = makeRecord({ url: 'https://other.example.test/mcp', savedAt: 7 });
    await store.write(other);
    const fileB = fileOf(other);
    await copyFile(fileA, fileB);
    expect(await store.read(other)).toBeUndefined();
    expect(logger.lines).toEqual([
      `tokens: warn: the token file ${fileB} is truncated, altered or not the file of its name: it is ignored`,
    ]);
    expect((await store.read(makeRecord({ url: 'https://probe.example.test/mcp' })))?.savedAt).toBe(5);
  });

  it('replaces files atomically: after many writes only record, index and key-check files remain', async () => {
    const store = await openStore();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        store.write(makeRecord({ savedAt: 100 + i, accessToken: `at-${i}` })),
      ),
    );
    const names = await readdir(dir);
    expect(names.filter((name) => name.includes('.tmp'))).toEqual([]);
    expect(names.sort()).toHaveLength(3); // key-check, the record, the index
    expect(names).toContain('key-check');
    expect((await store.read(makeRecord()))?.accessToken).toBe('at-29');
  });

  it('never replaces a newer record with an older one', async () => {
    const store = await openStore();
    await store.write(makeRecord({ savedAt: 2_000, accessToken: 'newer-token' }));
    const kept = await store.write(makeRecord({ savedAt: 1_000, accessToken: 'older-token' }));
    expect(kept.accessToken).toBe('newer-token');
    expect((await (await openStore()).read(makeRecord()))?.accessToken).toBe('newer-token');
  });

  it('keeps records of different identities of the same URL apart, and deletes one', async () => {
    const store = await openStore();
    const work = makeRecord({
      identity: 'mcp-bridge-vscode|work|http://127.0.0.1:41894/callback',
      accessToken: 'w',
    });
    await store.write(makeRecord());
    await store.write(work);
    expect(await store.delete(makeRecord())).toBe(true);
    expect(await store.delete(makeRecord())).toBe(false);
    expect(await store.read(makeRecord())).toBeUndefined();
    expect((await store.read(work))?.accessToken).toBe('w');
    expect(await store.list()).toEqual([{ url: work.url, identity: work.identity }]);
  });
});
