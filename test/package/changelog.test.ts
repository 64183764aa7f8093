/**
 * The CHANGELOG reader of the release workflow (scripts/changelog.ts): the notes of a tag's version
 * become the GitHub release; a missing or empty section stops the release.
 */
import { describe, expect, it } from 'vitest';
import { newestRelease, parseChangelog, releaseNotes } from '../../scripts/changelog.js';

const TEXT = [
  '# Changelog',
  '',
  'Preamble.',
  '',
  '## [Unreleased]',
  '',
  '### Added',
  '',
  '- Next thing.',
  '',
  '## [1.1.0] - 2026-11-30',
  '',
  '### Fixed',
  '',
  '- A fix.',
  '',
  '## [1.0.0] - 2026-10-01',
  '',
  '- First.',
  '',
  '## [0.9.0] - 2026-09-01',
  '',
].join('\r\n');

describe('scripts/changelog', () => {
  it('parses the sections in order, with dates and trimmed bodies (\\r\\n line ends too)', () => {
    expect(parseChangelog(TEXT)).toEqual([
      { title: 'Unreleased', body: '### Added\n\n- Next thing.' },
      { title: '1.1.0', date: '2026-11-30', body: '### Fixed\n\n- A fix.' },
      { title: '1.0.0', date: '2026-10-01', body: '- First.' },
      { title: '0.9.0', date: '2026-09-01', body: '' },
    ]);
  });

  it('finds the newest released version, none before the first release', () => {
    expect(newestRelease(TEXT)).toBe('1.1.0');
    expect(newestRelease('# Changelog\n\n## [Unreleased]\n\n- x\n')).toBeUndefined();
  });

  it('gives the notes of a released version and refuses a missing, undated or empty one', () => {
    expect(releaseNotes(TEXT, '1.0.0')).toBe('- First.');
    expect(() => releaseNotes(TEXT, '2.0.0')).toThrow('CHANGELOG.md has no released section for 2.0.0');
    expect(() => releaseNotes(TEXT, 'Unreleased')).toThrow('has no released section for Unreleased');
    expect(() => releaseNotes(TEXT, '0.9.0')).toThrow('the CHANGELOG.md section of 0.9.0 is empty');
  });

  it('refuses a level-2 heading that is not a Keep a Changelog section', () => {
    expect(() => parseChangelog('## 1.0.0\n')).toThrow('not a Keep a Changelog heading: ## 1.0.0');
  });
});
