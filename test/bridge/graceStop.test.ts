/**
 * The one end-of-input grace (src/bridge/graceStop.ts, docs/lifecycle.md#lifecycle-end-of-input):
 * the stop comes when the work is idle or when the grace has passed, whichever is first.
 */
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { graceStop } from '../../src/bridge/graceStop.js';

const scheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('graceStop', () => {
  it('without an idle signal, stops the grace after the first trigger, once', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('--t-t-|').pipe(graceStop({ graceMs: 5 }))).toBe('-------(s|)', { s: 0 });
    });
  });

  it('stops when the work is idle before the grace has passed', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const idle = cold('---i');
      expectObservable(cold('--t').pipe(graceStop({ graceMs: 5, idle: () => idle }))).toBe('-----(s|)', {
        s: 'i',
      });
    });
  });

  it('stops at the grace when the work is still busy', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const idle = cold('----------i');
      expectObservable(cold('--t').pipe(graceStop({ graceMs: 5, idle: () => idle }))).toBe('-------(s|)', {
        s: 0,
      });
    });
  });

  it('asks for the idle signal of the trigger: undefined waits the whole grace', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const idle = cold('i');
      const stop = graceStop<string>({
        graceMs: 5,
        idle: (trigger) => (trigger === 'gone' ? idle : undefined),
      });
      expectObservable(cold('-e', { e: 'end' }).pipe(stop)).toBe('------(s|)', { s: 0 });
      expectObservable(cold('-g', { g: 'gone' }).pipe(stop)).toBe('-(s|)', { s: 'i' });
    });
  });
});
