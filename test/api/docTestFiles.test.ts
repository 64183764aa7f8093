/**
 * The test files README.md and SECURITY.md name as the proof of a claim exist: a claim whose test
 * was renamed or removed is found here, not by a reader.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);

/** Each `…/name.test.ts` in backticks (a path under test/, or from the root, or in examples/). */
function namedTests(doc: string): string[] {
  const text = readFileSync(new URL(doc, ROOT), 'utf8');
  const found = [...text.matchAll(/`((?:test\/)?(?:[\w.-]+\/)*[\w.-]+\.test\.ts)`/g)].map((m) =>
    (m[1] ?? '').replace(/^test\//, ''),
  );
  return [...new Set(found)];
}

describe('the test files the docs name', () => {
  it.each(['README.md', 'SECURITY.md'])('exist for every one %s names', (doc) => {
    const named = namedTests(doc);
    expect(named.length).toBeGreaterThan(5);
    const exists = (path: string): boolean =>
      [`test/${path}`, path, `examples/${path}`].some((where) => existsSync(new URL(where, ROOT)));
    expect(named.filter((path) => !exists(path))).toEqual([]);
  });
});
