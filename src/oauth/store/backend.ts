/**
 * A durable store below the index: JSON values under hashed names (record.ts). The file and
 * keychain stores implement it; `createIndexedStore` (index.ts) turns one into a TokenStore.
 */
export interface RecordBackend {
  readonly kind: 'keychain' | 'file';
  /** The start line of docs/sign-in.md#sign-in-stores that names the store. */
  readonly description: string;
  /**
   * The stored value of `name`, or undefined when there is none, or when it is refused (a
   * truncated or altered file: logged, treated as no record). Rejects when the store fails.
   */
  load(name: string): Promise<unknown>;
  /** Replaces the value of `name` as a whole (never half written). */
  save(name: string, value: unknown): Promise<void>;
  /** True when a value was deleted. */
  remove(name: string): Promise<boolean>;
  /** Every name stored (to rebuild a damaged index, and for logout --all). */
  names(): Promise<string[]>;
}
