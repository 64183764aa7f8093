/**
 * The memory store (docs/sign-in.md#sign-in-stores): records live as long as the process. Each
 * process signs in on its own with it.
 */
import { steadyHold } from './hold.js';
import type { LockHold, RecordKey, SignInLock, TokenRecord, TokenStore } from './types.js';

const keyOf = (key: RecordKey): string => `${key.url}\n${key.identity}`;

export function createMemoryStore(
  description = 'the tokens stay in memory (--token-store memory)',
): TokenStore {
  const records = new Map<string, TokenRecord>();
  return {
    kind: 'memory',
    description,
    read: (key) => Promise.resolve(records.get(keyOf(key))),
    write(record) {
      const stored = records.get(keyOf(record));
      if (stored !== undefined && stored.savedAt > record.savedAt) return Promise.resolve(stored);
      records.set(keyOf(record), record);
      return Promise.resolve(record);
    },
    delete: (key) => Promise.resolve(records.delete(keyOf(key))),
    list: () => Promise.resolve([...records.values()].map(({ url, identity }) => ({ url, identity }))),
  };
}

/** A lock within this process only: one holder per key at a time, in order of arrival. */
export function createProcessLock(): SignInLock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    hold<T>(key: RecordKey, work: (held: LockHold) => Promise<T>): Promise<T> {
      const id = keyOf(key);
      const before = tails.get(id) ?? Promise.resolve();
      const start = (): Promise<T> => work(steadyHold());
      const run = before.then(start, start);
      const tail = run.then(
        () => undefined,
        () => undefined,
      );
      tails.set(id, tail);
      void tail.then(() => {
        if (tails.get(id) === tail) tails.delete(id);
      });
      return run;
    },
  };
}
