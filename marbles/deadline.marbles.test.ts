import { NEVER, Observable, of } from 'rxjs';
import type { SchedulerAction, SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { withDeadline } from '../operators/withDeadline.js';
import { unhandledErrorsOf } from './unhandledErrors.js';

const scheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const timeout = new Error('timeout');

// docs/requests.md#requests-deadlines: per-method limits; the exchange is cancelled on timeout.
describe('withDeadline', () => {
  it('values pass unchanged until the limit, and they do not extend it', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const exchange = cold('   p-q-p-q-p-q|');
      const output = exchange.pipe(withDeadline({ limitMs: 5, error: () => timeout }));
      expectObservable(output).toBe('p-q-p#', undefined, timeout);
    });
  });

  it('at the limit the source is unsubscribed and the output fails with config.error()', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const exchange = cold('   -p--p--p--r|');
      const output = exchange.pipe(withDeadline({ limitMs: 5, error: () => timeout }));
      expectObservable(output).toBe('-p--p#', undefined, timeout);
      expectSubscriptions(exchange.subscriptions).toBe('^----!');
    });
  });

  it('a throw of config.error fails the output with what it threw, at the limit', () => {
    const broken = new Error('a bug in error()');
    const error = (): Error => {
      throw broken;
    };
    const unhandled = unhandledErrorsOf(() => {
      scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const exchange = cold('   -p--p--p--r|');
        expectObservable(exchange.pipe(withDeadline({ limitMs: 5, error }))).toBe(
          '-p--p#',
          undefined,
          broken,
        );
        expectSubscriptions(exchange.subscriptions).toBe('^----!');
      });
    });
    expect(unhandled).toEqual([]);
  });

  it('a source that completes first stops the clock, also when it completes synchronously', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const exchange = cold('   --(r|)');
      expectObservable(exchange.pipe(withDeadline({ limitMs: 1000, error: () => timeout }))).toBe('--(r|)');
      // A memory upstream answers during the subscription: the limit must not fail it later.
      expectObservable(of('r').pipe(withDeadline({ limitMs: 5, error: () => timeout }))).toBe('(r|)');
    });
  });

  it('a limit above 2^31-1 ms is capped there', () => {
    // A scheduler that records the delay of each scheduled action (the clock of the limit).
    const delays: number[] = [];
    const recording: SchedulerLike = {
      now: () => 0,
      schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T) {
        delays.push(delay);
        const action = { schedule: () => action, unsubscribe: () => undefined, closed: false };
        void work;
        void state;
        return action as unknown as SchedulerAction<T>;
      },
    };
    const open = NEVER.pipe(
      withDeadline({ limitMs: 2 ** 40, error: () => timeout, scheduler: recording }),
    ).subscribe();
    expect(delays).toEqual([2_147_483_647]);
    open.unsubscribe();
  });

  it('config.error is called before the source is unsubscribed', () => {
    // The caller names the timeout in the cancel that the unsubscription sends upstream.
    const events: string[] = [];
    scheduler().run(({ expectObservable }) => {
      const exchange = new Observable<string>(() => () => events.push('unsubscribed'));
      const error = (): Error => {
        events.push('error');
        return timeout;
      };
      expectObservable(exchange.pipe(withDeadline({ limitMs: 3, error }))).toBe('---#', undefined, timeout);
    });
    expect(events).toEqual(['error', 'unsubscribed']);
  });

  it('config.error is called as a plain function, not as a method of an object of the operator', () => {
    const receivers: unknown[] = [];
    const error = function (this: unknown): Error {
      receivers.push(this);
      return timeout;
    };
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-p--p--r|').pipe(withDeadline({ limitMs: 5, error }))).toBe(
        '-p--p#',
        undefined,
        timeout,
      );
    });
    expect(receivers).toEqual([undefined]);
  });
});
