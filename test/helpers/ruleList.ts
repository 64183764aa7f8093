/**
 * The `Rules (marbles/<file>):` list of an operator's doc comment (README.md, marbles/README.md):
 * read by marbles/rules.test.ts (the rules and the marble test titles cannot drift) and by the
 * generator of site/rules/index.md.
 */
import { readFileSync, readdirSync } from 'node:fs';

export interface RuleList {
  readonly testFile: string;
  readonly rules: string[];
}

/** The rule list of a doc comment; a rule that does not fit on one line fails here. */
export function ruleList(source: string): RuleList | undefined {
  const lines = source.split('\n');
  const start = lines.findIndex((line) => /^ \* Rules \(marbles\/[\w.]+\.test\.ts\):$/.test(line));
  if (start < 0) return undefined;
  const testFile = /\((marbles\/[\w.]+)\)/.exec(lines[start]!)![1]!;
  const rules: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const rule = /^ \* (\d+)\. (.+)$/.exec(line);
    if (rule === null) {
      // The list ends at a blank comment line or the end of the comment; anything else is a
      // continuation line, which this format does not have.
      if (line !== ' *' && line !== ' */') throw new Error(`not a one-line rule: ${JSON.stringify(line)}`);
      break;
    }
    if (Number(rule[1]) !== rules.length + 1) throw new Error(`rule ${rule[1]} is out of order`);
    rules.push(rule[2]!);
  }
  return { testFile, rules };
}

/** Every file with a rule list: each operator, and the listener of the bridge. */
export function ruleSources(root: string): string[] {
  return [
    ...readdirSync(`${root}operators`)
      .filter((name) => name.endsWith('.ts') && name !== 'index.ts')
      .sort()
      .map((name) => `operators/${name}`),
    'src/bridge/listener.ts',
  ];
}

/** The name a rule list belongs to: the operator's file name, or the listener. */
const subjectOf = (path: string): string =>
  path.startsWith('operators/')
    ? `\`${path.slice('operators/'.length, -'.ts'.length)}\``
    : 'The listener of the bridge';

/**
 * site/rules/index.md, generated from the rule lists of the doc comments:
 * `npm run docs:rules` writes it, test/api/rulesPage.test.ts checks that it is up to date.
 */
export function renderRulesPage(root: string): string {
  const sections = ruleSources(root).map((path) => {
    const list = ruleList(readFileSync(`${root}${path}`, 'utf8'));
    if (list === undefined) throw new Error(`${path} has no rule list`);
    const rules = list.rules.map((rule, index) => `${index + 1}. ${rule}`).join('\n');
    return `## ${subjectOf(path)}\n\nSource: \`${path}\`. Marble tests: \`${list.testFile}\`.\n\n${rules}\n`;
  });
  return [
    '# Protocol rules',
    '',
    'Every timing and ordering rule of the bridge is a marble test whose title is the rule. The tests',
    'run in CI, so this list cannot drift from the code. Read the legend in `marbles/README.md` first.',
    '',
    '<!-- Generated from the `Rules (marbles/…):` lists of the doc comments by `npm run docs:rules`. Do not edit. -->',
    '',
    ...sections.flatMap((section) => [section]),
  ].join('\n');
}
