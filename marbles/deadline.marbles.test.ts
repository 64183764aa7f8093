import { of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { withDeadline } from '../operators/withDeadline.js';

const scheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const timeout = new Error('timeout');

// reference-behaviors.md §3.5: per-method limits; the exchange is cancelled on timeout.
describe('withDeadline', () => {
  it('fails at the limit and unsubscribes the upstream exchange', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const exchange = cold('   -p--p--p--r|');
      const output = exchange.pipe(withDeadline({ limitMs: 5, error: () => timeout }));
      expectObservable(output).toBe('-p--p#', undefined, timeout);
      expectSubscriptions(exchange.subscriptions).toBe('^----!');
    });
  });

  it('progress does not extend the limit', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const exchange = cold('   p-p-p-p-p-p|');
      const output = exchange.pipe(withDeadline({ limitMs: 5, error: () => timeout }));
      expectObservable(output).toBe('p-p-p#', undefined, timeout);
    });
  });

  it('a response before the limit stops the clock', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const exchange = cold('   --(r|)');
      const output = exchange.pipe(withDeadline({ limitMs: 1000, error: () => timeout }));
      expectObservable(output).toBe('--(r|)');
    });
  });

  it('a response in the frame of the subscription stops the clock', () => {
    scheduler().run(({ expectObservable }) => {
      // A memory upstream answers during the subscription: the limit must not fail it later.
      const exchange = of('r');
      const output = exchange.pipe(withDeadline({ limitMs: 5, error: () => timeout }));
      expectObservable(output).toBe('(r|)');
    });
  });
});
