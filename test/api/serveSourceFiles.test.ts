/**
 * docs/serve.md#serve-sources names every source file of the HTTP front end: a file added to
 * src/edges/httpFront/ without its line there fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const section = (text: string): string => {
  const start = text.indexOf('## Source files');
  return text.slice(start, text.indexOf('\n## ', start + 1));
};

describe('docs/serve.md, source files', () => {
  it('names each file of src/edges/httpFront/', () => {
    const named = section(readFileSync('docs/serve.md', 'utf8'));
    const files = readdirSync('src/edges/httpFront').filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((name) => !named.includes(`\`${name}\``))).toEqual([]);
  });
});
