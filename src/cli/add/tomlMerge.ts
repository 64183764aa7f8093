/**
 * Merges a server entry into Codex's config.toml (docs/install.md#install-add) as text, so that
 * comments and the layout of the rest stay: a new entry is a `[mcp_servers.<name>]` table added
 * at the end; with --force, the lines of that table (and of its sub-tables) are replaced. The
 * result is parsed again (smol-toml, a TOML 1.0 parser) and must hold the entry and everything
 * else unchanged; an entry written another way (dotted keys, an inline table) is refused.
 */
import { parse } from 'smol-toml';
import { decide, deepEqual, isRecord, withoutEntry } from './merge.js';
import type { MergeResult } from './merge.js';

/** A TOML basic string: quotes, backslashes and control characters escaped. */
export const tomlString = (text: string): string =>
  `"${text.replace(
    // eslint-disable-next-line no-control-regex -- the characters TOML requires escaped
    /["\\\x00-\x1f\x7f]/g,
    (char) =>
      ({ '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r' })[char] ??
      `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )}"`;

/** The table of one server: `[key.name]` and its keys (strings and arrays of strings only). */
export function tomlTable(key: string, name: string, entry: Readonly<Record<string, unknown>>): string {
  const lines = [`[${key}.${name}]`];
  for (const [field, value] of Object.entries(entry)) {
    const text = Array.isArray(value)
      ? `[${value.map((item) => tomlString(String(item))).join(', ')}]`
      : tomlString(String(value));
    lines.push(`${field} = ${text}`);
  }
  return `${lines.join('\n')}\n`;
}

const parseToml = (text: string): Record<string, unknown> | undefined => {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
};

/** The header of the table `[key.name]` or one of its sub-tables, with the name quoted or not. */
const ownHeader = (key: string, name: string): RegExp =>
  new RegExp(`^\\s*\\[\\s*${key}\\s*\\.\\s*(${name}|"${name}"|'${name}')\\s*(\\.[^\\]]*)?\\]\\s*(#.*)?$`);

/** `text` without the lines of `[key.name]` and its sub-tables; undefined when it has no such header. */
function withoutTable(text: string, key: string, name: string): { rest: string[]; at: number } | undefined {
  const lines = text.split('\n');
  const own = ownHeader(key, name);
  const rest: string[] = [];
  let at = -1;
  let inside = false;
  for (const line of lines) {
    if (/^\s*\[/.test(line)) inside = own.test(line);
    if (inside) {
      if (at < 0) at = rest.length;
    } else rest.push(line);
  }
  return at < 0 ? undefined : { rest, at };
}

export function mergeToml(
  text: string,
  key: string,
  name: string,
  entry: Readonly<Record<string, unknown>>,
  force: boolean,
): MergeResult {
  const document = parseToml(text);
  if (document === undefined) return { kind: 'invalid', message: 'it is not valid TOML' };
  const decision = decide(document, key, name, entry, force);
  if (typeof decision !== 'string') return decision;
  const table = tomlTable(key, name, entry);
  let merged: string;
  if (decision === 'replace') {
    const found = withoutTable(text, key, name);
    if (found === undefined) {
      return { kind: 'invalid', message: `its entry is not a [${key}.${name}] table: edit it by hand` };
    }
    found.rest.splice(found.at, 0, ...table.split('\n').slice(0, -1), '');
    merged = found.rest.join('\n');
  } else {
    const body = text === '' || text.endsWith('\n') ? text : `${text}\n`;
    merged = body.trim() === '' ? table : `${body}\n${table}`;
  }
  // The edit is checked, not trusted: the entry is there, and the rest is what it was.
  const after = parseToml(merged);
  const before = document[key] === undefined ? { ...document, [key]: {} } : document;
  if (
    after === undefined ||
    !deepEqual(withoutEntry(after, key, name), withoutEntry(before, key, name)) ||
    !isRecord(after[key]) ||
    !deepEqual(after[key][name], entry)
  ) {
    return { kind: 'invalid', message: 'the entry could not be merged into it without changing other keys' };
  }
  return { kind: 'merged', text: merged, replaced: decision === 'replace' };
}
