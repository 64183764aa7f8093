/**
 * The `_meta` key grammar of MCP (docs/requests.md#requests-meta-keys): `[prefix/]name`, where the prefix
 * is dot-separated labels and the name may be empty; and the keys 2026-07-28 reserves for itself,
 * which every layer that reads or writes `_meta` names from here.
 */

/** Reserved `_meta` keys of 2026-07-28 (docs/requests.md#requests-meta-keys). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

// A label starts with a letter, ends with a letter or digit, and has letters, digits and
// hyphens inside.
const LABEL = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
// A name is empty, or starts and ends with an alphanumeric, with alphanumerics, '-', '_' and
// '.' inside.
const NAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;

export interface MetaKey {
  /** The labels of the prefix; empty without a prefix. */
  readonly labels: readonly string[];
  readonly name: string;
}

/** Splits a `_meta` key by the grammar; undefined when the key is not valid. */
export function parseMetaKey(key: string): MetaKey | undefined {
  const slash = key.indexOf('/');
  if (slash < 0) return NAME.test(key) ? { labels: [], name: key } : undefined;
  const labels = key.slice(0, slash).split('.');
  const name = key.slice(slash + 1);
  if (!labels.every((label) => LABEL.test(label)) || !NAME.test(name)) return undefined;
  return { labels, name };
}

/**
 * True for a prefix that MCP reserves. The reference (docs/requests.md#requests-meta) drops a
 * prefix with any label `modelcontextprotocol` or `mcp`, which covers the specification's
 * "second label" rule (docs/requests.md#requests-meta-keys) and is stricter: `vscode.mcp/x` is dropped.
 */
export const isReservedPrefix = (key: MetaKey): boolean =>
  key.labels.some((label) => {
    const lower = label.toLowerCase();
    return lower === 'modelcontextprotocol' || lower === 'mcp';
  });

/**
 * True for a prefix that 2026-07-28 itself reserves (docs/requests.md#requests-meta-keys): its second label
 * is `modelcontextprotocol` or `mcp` (`io.modelcontextprotocol/`, `dev.mcp/`,
 * `com.mcp.tools/`; not `com.example.mcp/`). Case-insensitive, to be safe.
 */
export function isSpecReservedPrefix(key: MetaKey): boolean {
  const second = key.labels[1]?.toLowerCase();
  return second === 'modelcontextprotocol' || second === 'mcp';
}
