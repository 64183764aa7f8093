/**
 * What merging an entry into a client's file gives (jsonMerge.ts, tomlMerge.ts), and the deep
 * equality both use to tell the same entry from a different one of the same name.
 */

export type MergeResult =
  /** The new text of the file; `replaced` when a different entry of the name was there (--force). */
  | { readonly kind: 'merged'; readonly text: string; readonly replaced: boolean }
  /** The very entry is there already: nothing to write. */
  | { readonly kind: 'same' }
  /** A different entry of the name is there, and no --force. */
  | { readonly kind: 'conflict' }
  /** The file cannot be merged into; `message` says why without quoting it. */
  | { readonly kind: 'invalid'; readonly message: string };

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Equal JSON-like values: same keys (in any order), same items in the same order. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => deepEqual(item, b[i]))
    );
  }
  if (isRecord(a) || isRecord(b)) {
    if (!isRecord(a) || !isRecord(b)) return false;
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]))
    );
  }
  return Object.is(a, b);
}

/** `document` without `document[key][name]`: what a merge must leave as it was. */
export function withoutEntry(
  document: Record<string, unknown>,
  key: string,
  name: string,
): Record<string, unknown> {
  const servers = document[key];
  if (!isRecord(servers) || !Object.hasOwn(servers, name)) return document;
  const rest = Object.fromEntries(Object.entries(servers).filter(([member]) => member !== name));
  return { ...document, [key]: rest };
}

/**
 * The checks before a merge: the servers under `key` must be a table if present; the entry of
 * `name` decides same, conflict or go.
 */
export function decide(
  document: Record<string, unknown>,
  key: string,
  name: string,
  entry: Readonly<Record<string, unknown>>,
  force: boolean,
): MergeResult | 'absent' | 'replace' {
  const servers = document[key];
  if (servers === undefined) return 'absent';
  if (!isRecord(servers)) return { kind: 'invalid', message: `its "${key}" is not an object` };
  if (!Object.hasOwn(servers, name)) return 'absent';
  if (deepEqual(servers[name], entry)) return { kind: 'same' };
  return force ? 'replace' : { kind: 'conflict' };
}
