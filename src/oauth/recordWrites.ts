/**
 * The writes of the sign-in to the token store (docs/sign-in.md#sign-in-stores,
 * docs/sign-in.md#sign-in-refresh): a new record, which the store answers with a newer one it
 * keeps, and the mark of a refresh about to be sent.
 */
import type { Logger } from '../ports/logger.js';
import { markedForRefresh } from './refreshMark.js';
import type { LockHold, TokenRecord, TokenStore } from './store/types.js';

const SCOPE = 'oauth';

/** What became of the mark of a refresh: kept, a newer record kept instead, or no write at all. */
export type RefreshMark = 'marked' | 'changed' | 'failed';

export interface RecordWrites {
  readonly save: (record: TokenRecord, held: LockHold) => Promise<void>;
  readonly markRefresh: (stored: TokenRecord & { readonly refreshToken: string }) => Promise<RefreshMark>;
}

/** The writes to `store`; `adopt` makes the record the store kept the current one. */
export function recordWrites(
  store: TokenStore,
  logger: Logger,
  adopt: (record: TokenRecord) => void,
): RecordWrites {
  /**
   * Stores the record; the store keeps a newer one it holds and returns what it keeps. A store
   * that fails loses nothing of this process: the token is used until the end of the process.
   */
  const save = async (record: TokenRecord, held: LockHold): Promise<void> => {
    // A lost hold writes nothing; the record in the store is the new holder's (docs/sign-in.md#sign-in-lock).
    await held.confirm();
    let kept = record;
    try {
      kept = await store.write(record);
    } catch {
      logger.log(
        SCOPE,
        'warn',
        'the token store did not keep the sign-in; it lasts until the end of the process',
      );
    }
    adopt(kept);
  };

  /**
   * Stores `stored` marked as in refresh (refreshMark.ts) right before its refresh token is sent:
   * `marked` when the store kept the mark, `changed` when it kept a newer record instead, `failed`
   * when the store failed (the token is not sent then: a mark that is not kept cannot stop the next
   * start from sending it again).
   */
  const markRefresh = async (
    stored: TokenRecord & { readonly refreshToken: string },
  ): Promise<RefreshMark> => {
    const marked = markedForRefresh(stored);
    let kept: TokenRecord;
    try {
      kept = await store.write(marked);
    } catch {
      logger.log(
        SCOPE,
        'warn',
        'the token store did not keep the refresh about to be sent: the bridge does not refresh, a new sign-in follows',
      );
      return 'failed';
    }
    return kept.savedAt === marked.savedAt &&
      kept.refreshToken === marked.refreshToken &&
      kept.refreshInFlight === marked.refreshInFlight
      ? 'marked'
      : 'changed';
  };
  return { save, markRefresh };
}
