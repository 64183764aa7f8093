/**
 * The index of stored sign-ins (docs/sign-in.md#sign-in-stores): bounded
 * to 256 entries, a damaged index ignored with a warning and rebuilt.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RecordBackend } from '../../src/oauth/store/backend.js';
import { openFileBackend } from '../../src/oauth/store/fileStore.js';
import { createIndexedStore } from '../../src/oauth/store/index.js';
import { KEY_A, makeRecord, recordingLogger, tempDir, type RecordingLogger } from './storeTestKit.js';

/** The index's name: the SHA-256 of `urn:mcp-bridge-sdk:index`, newline, `index`. */
const INDEX_NAME = createHash('sha256').update('urn:mcp-bridge-sdk:index\nindex').digest('hex');

/** A backend in memory, to write hundreds of records quickly. */
function memoryBackend(): RecordBackend & { values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  return {
    values,
    kind: 'keychain',
    description: 'test backend',
    load: (name) => Promise.resolve(values.get(name)),
    save: (name, value) => Promise.resolve(void values.set(name, JSON.parse(JSON.stringify(value)))),
    remove: (name) => Promise.resolve(values.delete(name)),
    names: () => Promise.resolve([...values.keys()]),
  };
}

let logger: RecordingLogger;
beforeEach(() => {
  logger = recordingLogger();
});

describe('index of stored sign-ins', () => {
  it('keeps at most 256 entries: the 257th sign-in deletes the oldest one, with a warning', async () => {
    const backend = memoryBackend();
    const store = createIndexedStore(backend, logger);
    for (let i = 0; i < 257; i += 1)
      await store.write(makeRecord({ url: `https://s${i}.example.test/mcp`, savedAt: 10_000 + i }));
    const listed = await store.list();
    expect(listed).toHaveLength(256);
    expect(listed.some((key) => key.url === 'https://s0.example.test/mcp')).toBe(false);
    expect(listed.some((key) => key.url === 'https://s256.example.test/mcp')).toBe(true);
    expect(await store.read(makeRecord({ url: 'https://s0.example.test/mcp' }))).toBeUndefined();
    expect(await store.read(makeRecord({ url: 'https://s1.example.test/mcp' }))).toBeDefined();
    expect(backend.values.size).toBe(257); // 256 records and the index
    expect(logger.lines).toEqual([
      'tokens: warn: the index of stored sign-ins is full (256): the oldest stored sign-in is deleted',
    ]);
  });

  it('lists 256 entries without a warning', async () => {
    const store = createIndexedStore(memoryBackend(), logger);
    for (let i = 0; i < 256; i += 1)
      await store.write(makeRecord({ url: `https://s${i}.example.test/mcp`, savedAt: 10_000 + i }));
    expect(await store.list()).toHaveLength(256);
    expect(logger.lines).toEqual([]);
  });

  it('ignores a damaged index with a warning and rebuilds it from the records', async () => {
    const backend = memoryBackend();
    const store = createIndexedStore(backend, logger);
    await store.write(makeRecord({ url: 'https://a.example.test/mcp' }));
    await store.write(makeRecord({ url: 'https://b.example.test/mcp' }));
    backend.values.set(INDEX_NAME, { kind: 'mcp-bridge-sdk/index', version: 1, entries: [{ url: 5 }] });
    const listed = (await store.list()).map((key) => key.url).sort();
    expect(listed).toEqual(['https://a.example.test/mcp', 'https://b.example.test/mcp']);
    expect(logger.lines).toEqual([
      'tokens: warn: the index of stored sign-ins is damaged: it is ignored and rebuilt from the stored sign-ins',
    ]);
    // The next write repairs the stored index.
    await store.write(makeRecord({ url: 'https://c.example.test/mcp' }));
    const repaired = backend.values.get(INDEX_NAME) as { entries: Array<{ url: string }> };
    expect(repaired.entries.map((entry) => entry.url).sort()).toEqual([
      'https://a.example.test/mcp',
      'https://b.example.test/mcp',
      'https://c.example.test/mcp',
    ]);
  });

  it('rebuilds from the files when the index file is altered on disk', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const backend = await openFileBackend(
        { directory: dir, key: Buffer.from(KEY_A, 'hex'), platform: process.platform },
        logger,
      );
      const store = createIndexedStore(backend, logger);
      await store.write(makeRecord({ url: 'https://a.example.test/mcp' }));
      await store.write(makeRecord({ url: 'https://b.example.test/mcp' }));
      const indexFile = path.join(dir, `${INDEX_NAME}.token`);
      const bytes = await readFile(indexFile);
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
      await writeFile(indexFile, bytes);
      expect((await store.list()).map((key) => key.url).sort()).toEqual([
        'https://a.example.test/mcp',
        'https://b.example.test/mcp',
      ]);
      expect(logger.lines).toEqual([
        `tokens: warn: the token file ${indexFile} is truncated, altered or not the file of its name: it is ignored`,
      ]);
    } finally {
      await cleanup();
    }
  });

  it('a failed index update is a warning, and the record is still written', async () => {
    const backend = memoryBackend();
    const values = backend.values;
    backend.save = (name, value) =>
      name === INDEX_NAME
        ? Promise.reject(new Error('disk full'))
        : Promise.resolve(void values.set(name, value));
    const store = createIndexedStore(backend, logger);
    await store.write(makeRecord());
    expect((await store.read(makeRecord()))?.accessToken).toBe('access-token-9f3b2c');
    expect(logger.lines).toEqual(['tokens: warn: the index of stored sign-ins was not updated: disk full']);
  });

  it('clear deletes every record, also one the index does not know, and the index', async () => {
    const backend = memoryBackend();
    const store = createIndexedStore(backend, logger);
    await store.write(makeRecord({ url: 'https://a.example.test/mcp' }));
    await store.write(makeRecord({ url: 'https://b.example.test/mcp' }));
    backend.values.set(INDEX_NAME, { kind: 'mcp-bridge-sdk/index', version: 1, entries: [] });
    expect(await store.clear()).toBe(2);
    expect(backend.values.size).toBe(0);
  });
});
