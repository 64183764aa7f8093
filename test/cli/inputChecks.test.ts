/**
 * The executable's lazily loaded schema checks (src/cli/inputChecks.ts): nothing loads
 * until a check or the preload, the load happens once, and the checks answer as the loaded ones.
 */
import { describe, expect, it } from 'vitest';
import { createLazyInputChecks } from '../../src/cli/inputChecks.js';
import { ajvInputChecks } from '../../src/codec/input/schemas.js';

describe('createLazyInputChecks', () => {
  it('loads nothing until the first check, then once, and answers as the loaded checks', () => {
    let loads = 0;
    const lazy = createLazyInputChecks(() => {
      loads += 1;
      return ajvInputChecks;
    });
    expect(loads).toBe(0);
    expect(lazy.loaded()).toBe(false);
    expect(lazy.checks.matchesSpec('ElicitResult', { action: 'accept', content: { name: 'x' } })).toBe(true);
    expect(lazy.checks.matchesSpec('ElicitResult', { action: 'maybe' })).toBe(false);
    const validate = lazy.checks.formValidator({ type: 'object', properties: { n: { type: 'number' } } });
    expect(validate?.({ n: 1 })).toBe(true);
    expect(validate?.({ n: 'one' })).toBe(false);
    expect(lazy.checks.formValidator({ type: 'no-such-type' })).toBeUndefined();
    lazy.preload();
    expect(loads).toBe(1);
    expect(lazy.loaded()).toBe(true);
  });

  it('loads at preload, and a failed preload leaves the failure to the first check', () => {
    let loads = 0;
    const lazy = createLazyInputChecks(() => {
      loads += 1;
      if (loads === 1) throw new Error('not there');
      return ajvInputChecks;
    });
    lazy.preload();
    expect(loads).toBe(1);
    expect(lazy.loaded()).toBe(false);
    expect(lazy.checks.matchesSpec('ListRootsResult', { roots: [] })).toBe(true);
    expect(loads).toBe(2);
    lazy.preload();
    expect(loads).toBe(2);
  });
});
