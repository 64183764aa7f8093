/**
 * No comment and no test title in src/, operators/, test/ or marbles/ carries a planning tag
 * ("issue 13", "finding 1", "security review 4.2", "deliverable 3"): a comment says why in the
 * project's words and cites the rule in docs/ (docs/style.md#style-comments), a test title
 * states the behavior. A tag may wrap over two comment lines, so each line is read together with
 * the start of the next.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const SCANNED_DIRS = ['src', 'operators', 'test', 'marbles'];

/** This file spells the tags it looks for. */
const SELF = 'test/api/planningTags.test.ts';

/**
 * Files rewritten on other branches; the tags left in them are swept when those branches land,
 * and then this list is empty. An entry ending in `*` names every file that starts so.
 */
const NOT_YET_SWEPT: readonly string[] = [];

const TAG =
  /\bissues?\s+#?\d+|\bissue\s+"|\(issues?\b|\bfinding\s+\d+|\bsecurity review\b|\breview\s+(?:finding|\d)|\bdeliverables?\s+\d+/gi;

function sourceFiles(): string[] {
  const root = new URL(ROOT).pathname;
  return SCANNED_DIRS.flatMap((dir) =>
    readdirSync(new URL(`${dir}/`, ROOT), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.(?:ts|js|mjs)$/.test(entry.name))
      .map((entry) => `${entry.parentPath.slice(root.length)}/${entry.name}`.replace(/\/+/g, '/').replace(/^\//, '')),
  ).filter((path) => path !== SELF && !path.includes('/fixtures/schemas/'));
}

const swept = (path: string): boolean =>
  !NOT_YET_SWEPT.some((entry) => (entry.endsWith('*') ? path.startsWith(entry.slice(0, -1)) : path === entry));

/** `file:line: text` for every tag that starts on a line of `text`, a wrapped one included. */
function tagsIn(file: string, text: string): string[] {
  const lines = text.split('\n');
  const hits: string[] = [];
  lines.forEach((line, i) => {
    const next = (lines[i + 1] ?? '').replace(/^\s*(?:\*(?!\/)|\/\/)?\s*/, '');
    for (const m of `${line} ${next}`.matchAll(TAG)) {
      if (m.index < line.length) hits.push(`${file}:${i + 1}: ${line.trim()}`);
    }
  });
  return [...new Set(hits)];
}

describe('planning tags', () => {
  it('finds a tag in a line, one wrapped over two comment lines, and in a test title', () => {
    expect(tagsIn('a.ts', '// the sign-in of issue\n// 13: once')).toEqual(['a.ts:1: // the sign-in of issue']);
    expect(tagsIn('a.ts', "it('refuses http (issue #11 item 7)', () => {")).toEqual([
      "a.ts:1: it('refuses http (issue #11 item 7)', () => {",
    ]);
    expect(tagsIn('a.ts', ' * peak RSS, deliverable\n * 3: bounded')).toEqual(['a.ts:1: * peak RSS, deliverable']);
    expect(tagsIn('a.ts', ' * a lost hold (Finding 1)')).toEqual(['a.ts:1: * a lost hold (Finding 1)']);
    expect(tagsIn('a.ts', ' * the issuer of the server; an issue of the reviewer')).toEqual([]);
  });

  it('leaves no tag outside the files that are not swept yet', () => {
    const hits = sourceFiles()
      .filter(swept)
      .flatMap((file) => tagsIn(file, readFileSync(new URL(file, ROOT), 'utf8')));
    expect(hits).toEqual([]);
  });
});
