/**
 * Merges a server entry into a client's JSON file (docs/install.md#install-add) with the edit
 * functions of jsonc-parser (the parser of VS Code's own settings): only the member of the entry
 * changes, so every other key, the comments of a JSONC file, the order and the indentation stay.
 * A strict JSON file (`comments: false`) that does not parse as JSON is refused, not repaired.
 */
import { applyEdits, findNodeAtLocation, modify, parse, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { Node, ParseError } from 'jsonc-parser';
import { decide, deepEqual, isRecord, withoutEntry } from './merge.js';
import type { MergeResult } from './merge.js';

/** The indentation of the first indented line, else two spaces. */
function indentOf(text: string): { insertSpaces: boolean; tabSize: number } {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indent === undefined) return { insertSpaces: true, tabSize: 2 };
  return indent.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1 }
    : { insertSpaces: true, tabSize: indent.length };
}

/** Parses `text` as an object; the line of the first error otherwise. */
function parseObject(text: string, comments: boolean): Record<string, unknown> | string {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: comments, disallowComments: !comments });
  const first = errors[0];
  if (first !== undefined) {
    const line = text.slice(0, first.offset).split('\n').length;
    return `it is not valid ${comments ? 'JSON with comments' : 'JSON'} (${printParseErrorCode(first.error)} on line ${line})`;
  }
  return isRecord(value) ? value : 'it does not hold a JSON object';
}

/**
 * `text` with the member `name: value` added last in `object`, when its closing brace is on a
 * line of its own: the new lines go before that line, and a comma after the last member unless
 * one is there. Nothing else moves (jsonc-parser's own insertion formats the neighbours too).
 */
function insertMember(text: string, object: Node, name: string, value: unknown): string | undefined {
  const close = object.offset + object.length - 1;
  const lineStart = text.lastIndexOf('\n', close - 1) + 1;
  const closeIndent = text.slice(lineStart, close);
  if (!/^[ \t]*$/.test(closeIndent)) return undefined;
  const { insertSpaces, tabSize } = indentOf(text);
  const unit = insertSpaces ? ' '.repeat(tabSize) : '\t';
  const indent = closeIndent + unit;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const body = JSON.stringify(value, null, unit).replace(/\n/g, `${eol}${indent}`);
  const member = `${indent}${JSON.stringify(name)}: ${body}${eol}`;
  const last = object.children?.at(-1);
  if (last === undefined) return `${text.slice(0, lineStart)}${member}${text.slice(lineStart)}`;
  const lastEnd = last.offset + last.length;
  // A comma after the last member, past blanks and comments, or one to add right after it.
  const between = text.slice(lastEnd, lineStart).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
  const comma = /^\s*,/.test(between) ? '' : ',';
  return `${text.slice(0, lastEnd)}${comma}${text.slice(lastEnd, lineStart)}${member}${text.slice(lineStart)}`;
}

/** The edited text: a new member inserted in place when it can be, else jsonc-parser's edit. */
function edited(text: string, key: string, name: string, entry: Readonly<Record<string, unknown>>): string {
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const servers = tree === undefined ? undefined : findNodeAtLocation(tree, [key]);
  const inserted =
    tree === undefined
      ? undefined
      : servers === undefined
        ? insertMember(text, tree, key, { [name]: entry })
        : findNodeAtLocation(servers, [name]) === undefined
          ? insertMember(text, servers, name, entry)
          : undefined;
  return (
    inserted ??
    applyEdits(
      text,
      modify(text, [key, name], entry, {
        formattingOptions: { ...indentOf(text), eol: text.includes('\r\n') ? '\r\n' : '\n' },
      }),
    )
  );
}

export function mergeJson(
  text: string,
  key: string,
  name: string,
  entry: Readonly<Record<string, unknown>>,
  options: { readonly force: boolean; readonly comments: boolean },
): MergeResult {
  const document = parseObject(text, options.comments);
  if (typeof document === 'string') return { kind: 'invalid', message: document };
  const decision = decide(document, key, name, entry, options.force);
  if (typeof decision !== 'string') return decision;
  const merged =
    text.trim() === ''
      ? `${JSON.stringify({ [key]: { [name]: entry } }, null, 2)}\n`
      : edited(text, key, name, entry);
  // The edit is checked, not trusted: the entry is there, and the rest is what it was.
  const after = parseObject(merged, options.comments);
  const before = document[key] === undefined ? { ...document, [key]: {} } : document;
  if (
    typeof after === 'string' ||
    !deepEqual(withoutEntry(after, key, name), withoutEntry(before, key, name)) ||
    !isRecord(after[key]) ||
    !deepEqual(after[key][name], entry)
  ) {
    return { kind: 'invalid', message: 'the entry could not be merged into it without changing other keys' };
  }
  return { kind: 'merged', text: merged, replaced: decision === 'replace' };
}
