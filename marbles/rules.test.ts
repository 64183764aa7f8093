/**
 * The rules in the doc comment of each operator (and of the listener) and the titles of its marble
 * tests cannot drift (README.md, marbles/README.md): each doc comment has a
 * `Rules (marbles/<file>):` list of one-line rules, and the tests directly inside the top-level
 * `describe` of that file are exactly those rules, title for title. Tests of other things (the
 * checks of a configuration, for example) live in a nested `describe`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ruleList } from '../test/helpers/ruleList.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const read = (path: string): string => readFileSync(`${root}${path}`, 'utf8');

/** Every file with a rule list: each operator, and the listener of the bridge. */
const SOURCES = [
  ...readdirSync(`${root}operators`)
    .filter((name) => name.endsWith('.ts') && name !== 'index.ts')
    .map((name) => `operators/${name}`),
  'src/bridge/listener.ts',
];

/** The titles of the tests directly inside the top-level describe (two spaces in). */
export function ruleTitles(testSource: string): string[] {
  const titles: string[] = [];
  for (const match of testSource.matchAll(/^ {2}it\(\s*(['"`])((?:\\.|(?!\1).)*)\1/gm)) {
    titles.push(match[2]!.replace(/\\(['"`\\])/g, '$1'));
  }
  return titles;
}

describe('operator rules and marble test titles', () => {
  it('the parsers find rules and titles, and refuse a rule on two lines', () => {
    const source = [
      '/**',
      ' * Rules (marbles/x.marbles.test.ts):',
      ' * 1. first rule',
      " * 2. the client's second rule",
      ' */',
    ].join('\n');
    expect(ruleList(source)).toEqual({
      testFile: 'marbles/x.marbles.test.ts',
      rules: ['first rule', "the client's second rule"],
    });
    expect(() => ruleList(' * Rules (marbles/x.test.ts):\n * 1. one\n *    two\n */')).toThrow(/one-line/);
    const tests = [
      "describe('x', () => {",
      "  it('first rule', () => {});",
      "  it('the client\\'s second rule', () => {});",
      "  describe('checks', () => {",
      "    it('not a rule', () => {});",
      '  });',
      '});',
    ].join('\n');
    expect(ruleTitles(tests)).toEqual(['first rule', "the client's second rule"]);
  });

  it.each(SOURCES)('%s lists its rules, and its marble tests are exactly those rules', (path) => {
    const list = ruleList(read(path));
    expect(list, `${path} has no "Rules (marbles/…):" list`).toBeDefined();
    expect(list!.rules.length).toBeGreaterThan(0);
    const titles = ruleTitles(read(list!.testFile));
    expect([...titles].sort()).toEqual([...list!.rules].sort());
    expect(new Set(titles).size).toBe(titles.length);
  });
});
