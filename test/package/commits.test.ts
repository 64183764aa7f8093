/**
 * The Conventional Commits check of CI (scripts/commits.ts).
 */
import { describe, expect, it } from 'vitest';
import { subjectProblem } from '../../scripts/commits.js';

describe('subjectProblem', () => {
  it.each([
    'feat(oauth): sign in with a browser',
    'fix: a bare type without scope',
    'test(process): the bridge in front of the fixture',
    'refactor(test)!: a breaking change',
    'docs(changelog): back-pressure, the security document',
    'ci(workflows, release): two scopes',
    "Merge branch 'pack' into main",
    'Merge pull request #12 from someone/branch',
    'Revert "feat(cli): something"',
  ])('passes %s', (subject) => {
    expect(subjectProblem(subject)).toBeUndefined();
  });

  it.each([
    [
      'feature(cli): a long type',
      'unknown type "feature" (one of feat, fix, docs, style, refactor, perf, test, build, ci, chore, revert)',
    ],
    [
      'Fix: upper-case type',
      'unknown type "Fix" (one of feat, fix, docs, style, refactor, perf, test, build, ci, chore, revert)',
    ],
    [
      'feat(CLI): upper-case scope',
      'not "type(scope): description" (Conventional Commits 1.0, lower-case scope, a space after the colon)',
    ],
    [
      'feat:no space',
      'not "type(scope): description" (Conventional Commits 1.0, lower-case scope, a space after the colon)',
    ],
    [
      'feat(cli) missing colon',
      'not "type(scope): description" (Conventional Commits 1.0, lower-case scope, a space after the colon)',
    ],
    [
      'wip',
      'unknown type "wip" (one of feat, fix, docs, style, refactor, perf, test, build, ci, chore, revert)',
    ],
    [
      '',
      'not "type(scope): description" (Conventional Commits 1.0, lower-case scope, a space after the colon)',
    ],
  ])('refuses %j', (subject, problem) => {
    expect(subjectProblem(subject)).toBe(problem);
  });
});
