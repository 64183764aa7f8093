/**
 * No comment in src/ or operators/ cites a section by a bare number ("§6.6"): those numbers were
 * sections of a document that is not in the repository. A comment cites docs/<page>.md#<anchor>
 * (docs/style.md#style-comments); an RFC's section keeps its RFC ("RFC 6749 §5.1").
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);

/** A § number that no RFC (or "RFC n §a and §b") names. */
const BARE = /(?<!RFC \d{4} )(?<!and )§\d/g;

function files(dir: string): string[] {
  return readdirSync(new URL(dir, ROOT), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(`${dir}/${entry.name}`)
      : entry.name.endsWith('.ts')
        ? [`${dir}/${entry.name}`]
        : [],
  );
}

const bareIn = (file: string, text: string): string[] =>
  text.split('\n').flatMap((line, i) => (line.match(BARE) === null ? [] : [`${file}:${i + 1}: ${line.trim()}`]));

describe('section citations', () => {
  it('finds a bare section number and leaves an RFC section alone', () => {
    expect(bareIn('a.ts', '/** 43 characters (§6.6). */')).toEqual(['a.ts:1: /** 43 characters (§6.6). */']);
    expect(bareIn('a.ts', '// RFC 6749 §5.1 and RFC 9728 §3.3 and §7.3')).toEqual([]);
  });

  it('src/ and operators/ cite no section by a bare number', () => {
    const hits = [...files('src'), ...files('operators')].flatMap((file) =>
      bareIn(file, readFileSync(new URL(file, ROOT), 'utf8')),
    );
    expect(hits).toEqual([]);
  });
});
