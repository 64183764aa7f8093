import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { map } from 'rxjs';
import { limitInFlight } from '../operators/limitInFlight.js';

const scheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

// reference-behaviors.md §2.9 and §11 item 21, scaled down to two places.
describe('limitInFlight', () => {
  it('refuses a task above the limit and the queue in the same frame, while two run and one waits', () => {
    scheduler().run(({ hot, cold, expectObservable }) => {
      const requests = hot('    -abcd--------|');
      const call = cold('        -----(r|)');
      const expected = '        ----x-AB---C-|';
      const output = requests.pipe(
        limitInFlight(
          { maxInFlight: 2, maxQueued: 1 },
          (id) => call.pipe(map(() => id.toUpperCase())),
          () => ['x'],
        ),
      );
      expectObservable(output).toBe(expected, { x: 'x', A: 'A', B: 'B', C: 'C' });
    });
  });

  it('starts a queued task at the frame the running task ends', () => {
    scheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const requests = hot('    -ab----------|');
      const call = cold('        ---(r|)');
      const output = requests.pipe(
        limitInFlight(
          { maxInFlight: 1, maxQueued: 1 },
          () => call,
          () => ['x'],
        ),
      );
      expectObservable(output).toBe('    ----r--r-----|');
      expectSubscriptions(call.subscriptions).toBe(['-^--!', '----^--!']);
    });
  });

  it('runs an uncounted value at once, beside a full limit', () => {
    scheduler().run(({ hot, cold, expectObservable }) => {
      const requests = hot('    -ap--|');
      const call = cold('        -----(r|)');
      const output = requests.pipe(
        limitInFlight(
          { maxInFlight: 1, counts: (value) => value !== 'p' },
          (value) => (value === 'p' ? ['P'] : call),
          () => ['x'],
        ),
      );
      expectObservable(output).toBe('    --P---(r|)');
    });
  });

  it('completes only when the source completed and every task ended', () => {
    scheduler().run(({ hot, cold, expectObservable }) => {
      const requests = hot('    -a|');
      const call = cold('        ----(r|)');
      const output = requests.pipe(
        limitInFlight(
          { maxInFlight: 4 },
          () => call,
          () => ['x'],
        ),
      );
      expectObservable(output).toBe('    -----(r|)');
    });
  });

  it('unsubscribing ends every running task', () => {
    scheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const requests = hot('    -a--b-');
      const call = cold('        ----------r|');
      const output = requests.pipe(
        limitInFlight(
          { maxInFlight: 4 },
          () => call,
          () => ['x'],
        ),
      );
      expectObservable(output, '^-----!').toBe('-------');
      expectSubscriptions(call.subscriptions).toBe(['-^----!', '----^-!']);
    });
  });

  it('rejects a limit below one when the operator is built', () => {
    expect(() =>
      limitInFlight(
        { maxInFlight: 0 },
        () => [],
        () => [],
      ),
    ).toThrow(RangeError);
  });
});
