/**
 * The Node default of the schema checks of input rounds (src/node/inputChecks.ts, README "Use the
 * library"): `mcp-bridge-sdk/node` loads ajv and the 2025-11-25 schema on the first check, by a
 * synchronous `require`, without a warning. In a child process of its own, so that nothing else
 * has loaded them; needs the build (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../package/support.js';

const SCRIPT = `
const node = await import(${JSON.stringify(`${ROOT}dist/src/node/index.js`)});
const { ajvInputChecksLoaded } = await import(${JSON.stringify(`${ROOT}dist/src/node/inputChecks.js`)});
const before = ajvInputChecksLoaded();
const cancel = node.ajvInputChecks.matchesSpec('ElicitResult', { action: 'cancel' });
const maybe = node.ajvInputChecks.matchesSpec('ElicitResult', { action: 'maybe' });
const form = node.ajvInputChecks.formValidator({ type: 'object', properties: { n: { type: 'integer' } } });
console.log(JSON.stringify({ before, cancel, maybe, one: form({ n: 1 }), text: form({ n: 'a' }), after: ajvInputChecksLoaded() }));
`;

describe('ajvInputChecks of mcp-bridge-sdk/node', () => {
  it('loads ajv and the schema on the first check, not at import, and checks with them', () => {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      before: false,
      cancel: true,
      maybe: false,
      one: true,
      text: false,
      after: true,
    });
  });
});
