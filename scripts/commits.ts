/**
 * The commit-message check of CI ("Version hygiene"): every commit subject of a pull
 * request follows Conventional Commits 1.0 (`type(scope)!: description`), as the house rules ask.
 * Merge commits and git's own `Revert "…"` subjects pass.
 *
 *   node dist/scripts/commits.js <base> <head>   # checks the commits of base..head
 *
 * Exits with code 1 and one line per refused subject.
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

export const COMMIT_TYPES = [
  'feat',
  'fix',
  'docs',
  'style',
  'refactor',
  'perf',
  'test',
  'build',
  'ci',
  'chore',
  'revert',
] as const;

const CONVENTIONAL = new RegExp(`^(?:${COMMIT_TYPES.join('|')})(?:\\([a-z0-9][a-z0-9._/, -]*\\))?!?: \\S`);

/** Why a subject is refused, or undefined when it passes. */
export function subjectProblem(subject: string): string | undefined {
  if (/^Merge (?:branch|pull request|remote-tracking branch|commit) /.test(subject)) return undefined;
  if (/^Revert ".+"$/.test(subject)) return undefined;
  if (CONVENTIONAL.test(subject)) return undefined;
  const type = /^([A-Za-z]+)/.exec(subject)?.[1];
  if (type !== undefined && !(COMMIT_TYPES as readonly string[]).includes(type)) {
    return `unknown type "${type}" (one of ${COMMIT_TYPES.join(', ')})`;
  }
  return 'not "type(scope): description" (Conventional Commits 1.0, lower-case scope, a space after the colon)';
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [base, head] = process.argv.slice(2);
  if (base === undefined || head === undefined) {
    process.stderr.write('usage: commits.js <base> <head>\n');
    process.exit(2);
  }
  // No shell: the refs are argv items.
  const log = execFileSync('git', ['log', '--format=%h %s', `${base}..${head}`], { encoding: 'utf8' });
  let refused = 0;
  for (const line of log.split('\n').filter((entry) => entry !== '')) {
    const [hash, ...words] = line.split(' ');
    const problem = subjectProblem(words.join(' '));
    if (problem !== undefined) {
      refused += 1;
      process.stdout.write(`${hash ?? ''}: ${problem}: ${words.join(' ')}\n`);
    }
  }
  process.exitCode = refused === 0 ? 0 : 1;
}
