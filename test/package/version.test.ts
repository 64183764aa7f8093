/**
 * Version hygiene: the version in package.json, what `--version` prints (the shipped
 * bundle, where the bundler wrote it in, and the unbundled build, which reads package.json) and
 * the newest released section of CHANGELOG.md agree. The release workflow refuses a tag whose
 * section is missing (scripts/changelog.ts, tested in changelog.test.ts).
 * Needs the build (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newestRelease, parseChangelog } from '../../scripts/changelog.js';
import { packageVersion } from '../../src/cli/version.js';
import { ROOT, manifest } from './support.js';

const versionOf = (file: string): string => {
  const result = spawnSync(process.execPath, [`${ROOT}${file}`, '--version'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(result.status).toBe(0);
  return result.stdout;
};

describe('version hygiene', () => {
  const { version } = manifest();

  it('package.json has a semantic version', () => {
    expect(version).toMatch(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/);
  });

  it('--version of the bundle and of the unbundled build print the package version', () => {
    expect(versionOf('dist/bin/mcp-bridge-vscode.js')).toBe(`mcp-bridge-vscode ${version}\n`);
    expect(versionOf('dist/src/cli/main.js')).toBe(`mcp-bridge-vscode ${version}\n`);
    // From the sources too (the fallback finds the package's own package.json by its name).
    expect(packageVersion()).toBe(version);
  });

  it('CHANGELOG.md starts with [Unreleased], and its newest released section is the package version', () => {
    const changelog = readFileSync(`${ROOT}CHANGELOG.md`, 'utf8');
    const sections = parseChangelog(changelog);
    expect(sections[0]?.title).toBe('Unreleased');
    // Released sections are dated and newest first.
    const released = sections.filter((section) => section.title !== 'Unreleased');
    for (const section of released) expect(section.date, section.title).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const dates = released.map((section) => section.date!);
    expect(dates).toEqual([...dates].sort().reverse());
    const newest = newestRelease(changelog);
    if (newest === undefined) {
      // Before the first release: package.json holds the version the first release gets.
      expect(released).toEqual([]);
      expect(version).toBe('0.1.0');
    } else {
      expect(newest).toBe(version);
    }
  });
});
