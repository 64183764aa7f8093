/**
 * The `.d.ts` surface of every entry is pinned in `api/*.api.md`, every
 * export has a doc comment, and every type a signature uses can be imported by the user
 * (docs/architecture.md#architecture-packages). Needs `npm run build`. After an intended API change:
 * `npm run api:update`, and review the diff of `api/`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENTRIES, surfaceOf } from './apiSurface.js';

const apiDir = fileURLToPath(new URL('../../api/', import.meta.url));
const reportFile = (entry: string): string =>
  `${apiDir}${entry === 'mcp-bridge-sdk' ? 'root' : entry.replace('mcp-bridge-sdk/', '')}.api.md`;
const updating = process.env['API_UPDATE'] === '1';

describe.each(Object.keys(ENTRIES))('%s', (entry) => {
  const surface = surfaceOf(entry);

  it('matches the checked-in API report', () => {
    if (updating) writeFileSync(reportFile(entry), surface.report);
    expect(surface.report).toBe(readFileSync(reportFile(entry), 'utf8'));
  });

  it('has a doc comment on every export', () => {
    expect(surface.undocumented).toEqual([]);
  });

  it('exports every type of this package that its signatures use (or the root entry does)', () => {
    expect(surface.missingTypes).toEqual([]);
  });
});
