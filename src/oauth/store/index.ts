/**
 * The index of stored sign-ins (docs/sign-in.md#sign-in-stores) and the
 * TokenStore over a durable backend. The index is one value under the reserved key INDEX_KEY in
 * the same store: at most 256 entries (url, identity, savedAt). A damaged index is ignored with a
 * warning and rebuilt from the records themselves; a failed index update is a warning, never a
 * failed write. Index updates hold the cross-process lock of INDEX_KEY, so that two processes
 * adding different sign-ins at once do not lose one of them.
 */
import type { Logger } from '../../ports/logger.js';
import type { RecordBackend } from './backend.js';
import { createProcessLock } from './memoryStore.js';
import { INDEX_KEY, parseRecord, reason, recordId, STORE_SCOPE } from './record.js';
import type { RecordKey, SignInLock, TokenRecord, TokenStore } from './types.js';

export const MAX_INDEX_ENTRIES = 256;

interface IndexEntry {
  readonly url: string;
  readonly identity: string;
  readonly savedAt: number;
}

/** A TokenStore that logout can also empty as a whole. */
export interface ManagedStore extends TokenStore {
  /** Deletes every record and the index; resolves with the number of records deleted. */
  clear(): Promise<number>;
}

export interface IndexedStoreOptions {
  /** Serialises index updates across processes (default: within this process only). */
  readonly lock?: SignInLock;
  /** Default 256 (docs/sign-in.md#sign-in-stores); tests lower it. */
  readonly maxEntries?: number;
}

const INDEX_KIND = 'mcp-bridge-sdk/index';

function parseIndex(value: unknown): IndexEntry[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { kind?: unknown; version?: unknown; entries?: unknown };
  if (v.kind !== INDEX_KIND || v.version !== 1 || !Array.isArray(v.entries)) return undefined;
  const entries: IndexEntry[] = [];
  for (const item of v.entries as unknown[]) {
    const e = item as Partial<Record<keyof IndexEntry, unknown>> | null;
    if (
      typeof e !== 'object' ||
      e === null ||
      typeof e.url !== 'string' ||
      typeof e.identity !== 'string' ||
      typeof e.savedAt !== 'number'
    )
      return undefined;
    entries.push({ url: e.url, identity: e.identity, savedAt: e.savedAt });
  }
  return entries;
}

const sameKey = (a: RecordKey, b: RecordKey): boolean => a.url === b.url && a.identity === b.identity;

export function createIndexedStore(
  backend: RecordBackend,
  logger: Logger,
  options: IndexedStoreOptions = {},
): ManagedStore {
  const local = createProcessLock();
  const indexLock = options.lock ?? local;
  const max = options.maxEntries ?? MAX_INDEX_ENTRIES;
  const indexName = recordId(INDEX_KEY);
  const warn = (text: string): void => logger.log(STORE_SCOPE, 'warn', text);

  async function readRecord(key: RecordKey): Promise<TokenRecord | undefined> {
    const value = await backend.load(recordId(key));
    if (value === undefined) return undefined;
    const record = parseRecord(value);
    if (record !== undefined && sameKey(record, key)) return record;
    warn(`a stored sign-in in the ${backend.kind} store is not a valid record: it is ignored`);
    return undefined;
  }

  async function rebuild(): Promise<IndexEntry[]> {
    const entries: IndexEntry[] = [];
    for (const name of await backend.names()) {
      if (name === indexName) continue;
      const record = parseRecord(await backend.load(name));
      if (record !== undefined && recordId(record) === name)
        entries.push({ url: record.url, identity: record.identity, savedAt: record.savedAt });
    }
    return entries.sort((a, b) => a.savedAt - b.savedAt).slice(-max);
  }

  async function loadIndex(): Promise<IndexEntry[]> {
    const value = await backend.load(indexName);
    const entries = parseIndex(value);
    if (entries !== undefined) return entries;
    if (value !== undefined)
      warn('the index of stored sign-ins is damaged: it is ignored and rebuilt from the stored sign-ins');
    return rebuild();
  }

  /** Applies `change` to the index under the index lock; keeps the newest `max` entries. */
  async function updateIndex(
    keep: RecordKey,
    change: (entries: IndexEntry[]) => IndexEntry[],
  ): Promise<void> {
    try {
      await indexLock.hold(INDEX_KEY, async () => {
        const next = change(await loadIndex()).sort((a, b) => a.savedAt - b.savedAt);
        while (next.length > max) {
          const oldest = next.findIndex((entry) => !sameKey(entry, keep));
          const [dropped] = next.splice(oldest, 1);
          if (dropped === undefined) break;
          warn(`the index of stored sign-ins is full (${max}): the oldest stored sign-in is deleted`);
          await backend.remove(recordId(dropped));
        }
        await backend.save(indexName, { kind: INDEX_KIND, version: 1, entries: next });
      });
    } catch (error) {
      warn(`the index of stored sign-ins was not updated: ${reason(error)}`);
    }
  }

  return {
    kind: backend.kind,
    description: backend.description,
    read: readRecord,
    write: (record) =>
      local.hold(record, async () => {
        const stored = await readRecord(record);
        // Never replace a newer record with an older one (types.ts).
        if (stored !== undefined && stored.savedAt > record.savedAt) return stored;
        await backend.save(recordId(record), record);
        await updateIndex(record, (entries) => [
          ...entries.filter((entry) => !sameKey(entry, record)),
          { url: record.url, identity: record.identity, savedAt: record.savedAt },
        ]);
        return record;
      }),
    delete: (key) =>
      local.hold(key, async () => {
        const removed = await backend.remove(recordId(key));
        await updateIndex(key, (entries) => entries.filter((entry) => !sameKey(entry, key)));
        return removed;
      }),
    list: async () => (await loadIndex()).map(({ url, identity }) => ({ url, identity })),
    async clear() {
      const names = new Set((await loadIndex()).map((entry) => recordId(entry)));
      for (const name of await backend.names()) names.add(name);
      names.delete(indexName);
      let count = 0;
      for (const name of names) if (await backend.remove(name)) count += 1;
      await backend.remove(indexName);
      return count;
    },
  };
}
