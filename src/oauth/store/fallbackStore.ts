/**
 * The store of `--token-store auto` after start (docs/sign-in.md#sign-in-stores): when the store in
 * use fails (the keychain is locked, the disk is full), the next one takes over for the rest of
 * the process and the failed operation runs again there. Only failures hand over; a record that
 * is absent or refused is an answer, not a failure.
 */
import type { Logger } from '../../ports/logger.js';
import { reason, STORE_SCOPE } from './record.js';
import type { TokenStore } from './types.js';

export function createFallbackStore(
  first: TokenStore,
  next: ReadonlyArray<() => Promise<TokenStore>>,
  logger: Logger,
): TokenStore {
  let current = first;
  const queue = [...next];
  let switching: Promise<void> | undefined;

  /** Moves from `failed` to the first next store that opens; false when none is left. */
  async function handOver(failed: TokenStore, error: unknown): Promise<boolean> {
    if (current === failed && switching === undefined) {
      switching = (async () => {
        for (let open = queue.shift(); open !== undefined; open = queue.shift()) {
          try {
            const store = await open();
            logger.log(
              STORE_SCOPE,
              'warn',
              `the ${failed.kind} store failed (${reason(error)}): for the rest of the process ${store.description}`,
            );
            current = store;
            return;
          } catch (openError) {
            logger.log(STORE_SCOPE, 'warn', `the next token store did not start: ${reason(openError)}`);
          }
        }
      })();
      await switching;
      switching = undefined;
    } else if (switching !== undefined) {
      await switching;
    }
    return current !== failed;
  }

  async function run<T>(operation: (store: TokenStore) => Promise<T>): Promise<T> {
    for (;;) {
      const store = current;
      try {
        return await operation(store);
      } catch (error) {
        if (!(await handOver(store, error))) throw error;
      }
    }
  }

  return {
    get kind() {
      return current.kind;
    },
    get description() {
      return current.description;
    },
    read: (key) => run((store) => store.read(key)),
    write: (record) => run((store) => store.write(record)),
    delete: (key) => run((store) => store.delete(key)),
    list: () => run((store) => store.list()),
  };
}
