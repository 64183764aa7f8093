/**
 * The CHANGELOG (Keep a Changelog) for releases: the newest released version, and the notes of one
 * version for its GitHub release ("Version hygiene"; .github/workflows/release.yml).
 *
 *   node dist/scripts/changelog.js notes <version>   # the body of `## [<version>] - <date>`
 *   node dist/scripts/changelog.js newest             # the newest released version
 *
 * Exits with code 1 when the section is missing or empty: a tag without its notes does not publish.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface Section {
  /** `Unreleased`, or a version such as `1.2.3`. */
  readonly title: string;
  /** `YYYY-MM-DD` for a released section. */
  readonly date?: string;
  /** The text between this heading and the next `## ` heading, trimmed. */
  readonly body: string;
}

const HEADING = /^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?[ \t]*$/;

/** The `## [...]` sections in order; text before the first one (the preamble) is not a section. */
export function parseChangelog(text: string): Section[] {
  const sections: { title: string; date?: string; lines: string[] }[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = HEADING.exec(line);
    if (match !== null) {
      const [, title, date] = match;
      sections.push(date === undefined ? { title: title!, lines: [] } : { title: title!, date, lines: [] });
    } else if (line.startsWith('## ')) {
      throw new Error(`not a Keep a Changelog heading: ${line}`);
    } else {
      sections.at(-1)?.lines.push(line);
    }
  }
  return sections.map(({ lines, ...rest }) => ({ ...rest, body: lines.join('\n').trim() }));
}

/** The newest released version (the first section with a date), or undefined before the first release. */
export function newestRelease(text: string): string | undefined {
  return parseChangelog(text).find((section) => section.date !== undefined)?.title;
}

/** The notes of `version`; throws when it has no dated section or the section is empty. */
export function releaseNotes(text: string, version: string): string {
  const section = parseChangelog(text).find((candidate) => candidate.title === version);
  if (section?.date === undefined) throw new Error(`CHANGELOG.md has no released section for ${version}`);
  if (section.body === '') throw new Error(`the CHANGELOG.md section of ${version} is empty`);
  return section.body;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [command, version] = process.argv.slice(2);
  try {
    const text = readFileSync('CHANGELOG.md', 'utf8');
    if (command === 'notes' && version !== undefined)
      process.stdout.write(`${releaseNotes(text, version)}\n`);
    else if (command === 'newest') process.stdout.write(`${newestRelease(text) ?? ''}\n`);
    else throw new Error('usage: changelog.js notes <version> | newest');
  } catch (error) {
    process.stderr.write(`changelog: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
