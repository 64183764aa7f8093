/**
 * The log of refused connections (docs/serve.md#serve-limits): one line at the first refusal, then
 * at most one per interval, which counts the refusals since the line before (no log flood).
 */
import { describe, expect, it } from 'vitest';
import { dropLog } from '../../../src/edges/httpFront/connectionLimit.js';

describe('the log of refused connections', () => {
  it('writes one line at once, none more within the interval, then one with the count', () => {
    let now = 1_000_000;
    const log = dropLog(8, 60_000, () => now);
    expect(log.drop()).toBe(
      '8 connections are open, the limit: 1 new connection was refused (at most one such line per 60 s)',
    );
    const within: (string | undefined)[] = [];
    for (let i = 0; i < 500; i += 1) {
      now += 100;
      within.push(log.drop());
    }
    expect(within.filter((line) => line !== undefined)).toEqual([]);
    now += 10_000;
    expect(log.drop()).toBe(
      '8 connections are open, the limit: 501 new connections were refused (at most one such line per 60 s)',
    );
  });
});
