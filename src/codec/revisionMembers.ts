/**
 * What each older client revision lacks (docs/revisions.md), per kind of object, and the
 * copy-on-change helpers of the downgrade steps: each returns its input itself when nothing
 * changes, so that a 2025-11-25 session pays a comparison and nothing more.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject, JsonValue } from '../protocol/jsonrpc.js';
import { omit } from './objects.js';
import { hasSince } from './revisions.js';
import type { ClientRevision } from './revisions.js';

/** The kinds of objects whose members changed between the client revisions. */
export type Kind = 'tool' | 'resource' | 'prompt' | 'argument' | 'implementation' | 'block' | 'contents';

/** The members each revision added to each kind (from the schema of each revision). */
const ADDED: Readonly<Record<Kind, readonly (readonly [ClientRevision, readonly string[]])[]>> = {
  tool: [
    ['2025-11-25', ['icons', 'execution']],
    ['2025-06-18', ['title', 'outputSchema', '_meta']],
    ['2025-03-26', ['annotations']],
  ],
  resource: [
    ['2025-11-25', ['icons']],
    ['2025-06-18', ['title', '_meta']],
  ],
  prompt: [
    ['2025-11-25', ['icons']],
    ['2025-06-18', ['title', '_meta']],
  ],
  argument: [['2025-06-18', ['title']]],
  implementation: [
    ['2025-11-25', ['icons', 'description', 'websiteUrl']],
    ['2025-06-18', ['title']],
  ],
  block: [
    ['2025-11-25', ['icons']],
    ['2025-06-18', ['_meta']],
  ],
  contents: [['2025-06-18', ['_meta']]],
};

/** The members `revision` lacks, per kind. */
function missing(revision: ClientRevision): Readonly<Record<Kind, readonly string[]>> {
  const out = {} as Record<Kind, string[]>;
  for (const kind of Object.keys(ADDED) as Kind[]) {
    out[kind] = ADDED[kind].flatMap(([since, keys]) => (hasSince(revision, since) ? [] : keys));
  }
  return out;
}

export const MISSING: Readonly<Record<ClientRevision, Readonly<Record<Kind, readonly string[]>>>> = {
  '2025-11-25': missing('2025-11-25'),
  '2025-06-18': missing('2025-06-18'),
  '2025-03-26': missing('2025-03-26'),
  '2024-11-05': missing('2024-11-05'),
};

/** `node` without `keys`; `node` itself when it has none of them. */
export function without(node: JsonObject, keys: readonly string[]): JsonObject {
  for (const key of keys) if (Object.hasOwn(node, key)) return omit(node, keys);
  return node;
}

/** `items` mapped by `step`; `items` itself when no item changed. */
export function mapItems(items: readonly JsonValue[], step: (item: JsonObject) => JsonObject): JsonValue[] {
  let out: JsonValue[] | undefined;
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index] as JsonValue;
    const shaped = isObject(item) ? step(item) : item;
    if (shaped !== item) (out ??= items.slice())[index] = shaped;
  }
  return out ?? (items as JsonValue[]);
}

/** `node` with `member` replaced by `value`, unless it is the same value. */
export function withMember(node: JsonObject, member: string, value: JsonValue | undefined): JsonObject {
  if (value === undefined || value === node[member]) return node;
  return { ...node, [member]: value };
}

/** `annotations.lastModified` is of 2025-06-18. */
export function annotationsOf(node: JsonObject, revision: ClientRevision): JsonObject {
  const annotations = node['annotations'];
  if (!isObject(annotations) || hasSince(revision, '2025-06-18')) return node;
  return withMember(node, 'annotations', without(annotations, ['lastModified']));
}
