/**
 * Every `docs/<page>.md#<anchor>` that the code, the tests, README.md or SECURITY.md cite names a
 * page of docs/ that defines that anchor, and every link between the pages of docs/ holds: a rule
 * that moved or was renamed is found here, not by a reader (docs/docs/style.md#style-comments). The
 * error table of src/protocol/errors.ts has one row per cause in docs/errors.md.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../../src/protocol/errors.js';

const ROOT = new URL('../../', import.meta.url);
const SOURCE_DIRS = ['src', 'operators', 'test', 'marbles', 'examples', 'scripts', 'bench'];
const ROOT_DOCS = ['README.md', 'SECURITY.md'];

/** The files under `dir` (relative to the root) whose names end in one of `exts`. */
function filesUnder(dir: string, exts: readonly string[]): string[] {
  if (!existsSync(new URL(`${dir}/`, ROOT))) return [];
  return readdirSync(new URL(`${dir}/`, ROOT), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && exts.some((ext) => entry.name.endsWith(ext)))
    .map((entry) => `${entry.parentPath.slice(new URL(ROOT).pathname.length)}/${entry.name}`.replace(/^\/+/, ''))
    .filter((path) => !path.includes('node_modules/') && !path.includes('/fixtures/schemas/'));
}

const read = (path: string): string => readFileSync(new URL(path, ROOT), 'utf8');

/** GitHub's slug of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors a page defines: explicit `<a id>`/`<a name>` and the slugs of its headings. */
function anchorsOf(page: string): Set<string> {
  const text = read(`docs/${page}`);
  const anchors = new Set<string>();
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1] ?? '');
  const seen = new Map<string, number>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const pages = readdirSync(new URL('docs/', ROOT)).filter((name) => name.endsWith('.md'));
const anchors = new Map(pages.map((page) => [page, anchorsOf(page)]));

/** What is wrong with one cited `page#anchor`, or undefined when it holds. */
function problem(page: string, anchor: string | undefined): string | undefined {
  const defined = anchors.get(page);
  if (defined === undefined) return `docs/${page} does not exist`;
  if (anchor !== undefined && !defined.has(anchor)) return `docs/${page} has no anchor #${anchor}`;
  return undefined;
}

/** The `docs/<page>.md#<anchor>` citations of one file, with what is wrong with each. */
function brokenCitations(path: string): string[] {
  const found: string[] = [];
  for (const m of read(path).matchAll(/\bdocs\/([\w.-]+\.md)(?:#([\w-]+))?/g)) {
    const wrong = problem(m[1] ?? '', m[2]);
    if (wrong !== undefined) found.push(`${path}: ${m[0]}: ${wrong}`);
  }
  return found;
}

describe('the docs anchors that are cited', () => {
  it('exist for every citation in the code, the tests, README.md and SECURITY.md', () => {
    const files = [...SOURCE_DIRS.flatMap((dir) => filesUnder(dir, ['.ts'])), ...ROOT_DOCS];
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(brokenCitations)).toEqual([]);
  });

  it('exist for every link between the pages of docs/', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = read(`docs/${page}`);
      for (const m of text.matchAll(/\]\(([\w.-]+\.md)?(?:#([\w-]+))?\)/g)) {
        const target = m[1] ?? page;
        const wrong = problem(target, m[2]);
        if (wrong !== undefined) broken.push(`docs/${page}: ${m[0]}: ${wrong}`);
      }
    }
    expect(pages.length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it('include one row of docs/errors.md for every cause of the error table', () => {
    const defined = anchors.get('errors.md') ?? new Set<string>();
    const missing = Object.keys(ERROR_TABLE).filter((cause) => !defined.has(`error-${cause}`));
    expect(missing).toEqual([]);
  });
});
