import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { from, map } from 'rxjs';
import type { ObservableInput } from 'rxjs';
import { limitInFlight } from '../operators/limitInFlight.js';
import { createProtocolScheduler } from '../src/testing/scheduler.js';
import { unhandledErrorsOf } from './unhandledErrors.js';

const scheduler = (): TestScheduler =>
  createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

// docs/requests.md#requests-in-flight, scaled down to one or two places.
describe('limitInFlight', () => {
  it('at most maxInFlight counted tasks run at once', () => {
    scheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const requests = hot('    -abc---------|');
      const call = cold('        ----(r|)');
      const output = requests.pipe(
        limitInFlight(
          { maxInFlight: 2, maxQueued: 5 },
          () => call,
          () => ['x'],
        ),
      );
      expectObservable(output).toBe('-----rr--r---|');
      // c starts only when a ends: never three at once.
      expectSubscriptions(call.subscriptions).toBe(['-^---!', '--^---!', '-----^---!']);
    });
  });

  it('a counted task above the limit waits in a queue of at most maxQueued tasks, and queued tasks start in FIFO order', () => {
    scheduler().run(({ hot, cold, expectObservable }) => {
      const requests = hot('    -abcd-----------|');
      const call = cold('        --(r|)');
      const output = requests.pipe(
        limitInFlight(
          { maxInFlight: 1, maxQueued: 3 },
          (id) => call.pipe(map(() => id.toUpperCase())),
          () => ['x'],
        ),
      );
      expectObservable(output).toBe('---A-B-C-D------|');
    });
  });

  it('a counted task above the limit and the queue gets refuse(value) at once, in the same frame', () => {
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

  it('an uncounted value runs at once and takes no place', () => {
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

  it('a queued value is never dropped or reordered, undefined included', () => {
    scheduler().run(({ hot, cold, expectObservable }) => {
      const values = { a: 'a', u: undefined, z: 0, e: '' };
      const requests = hot('    -auzeu----------|', values);
      const call = cold('        --(r|)');
      const output = requests.pipe(
        limitInFlight(
          { maxInFlight: 1, maxQueued: 8 },
          (value: string | number | undefined) => call.pipe(map(() => `<${String(value)}>`)),
          () => ['x'],
        ),
      );
      expectObservable(output).toBe('---A-U-Z-E-U----|', {
        A: '<a>',
        U: '<undefined>',
        Z: '<0>',
        E: '<>',
      });
    });
  });

  it('a task that errors ends alone: failed(value, error) takes its place and the other tasks go on', () => {
    scheduler().run(({ hot, cold, expectObservable }) => {
      const requests = hot('    -abc--------|');
      const call = cold('        ----(r|)');
      const broken = new Error('a bug in the task');
      const output = requests.pipe(
        limitInFlight(
          {
            maxInFlight: 2,
            maxQueued: 1,
            failed: (value, error) => [`${value} failed: ${(error as Error).message}`],
          },
          // a fails while b runs and c waits in the queue: c takes the place of a, b goes on.
          (id) => (id === 'a' ? cold('---#', undefined, broken) : call.pipe(map(() => id.toUpperCase()))),
          () => ['x'],
        ),
      );
      expectObservable(output).toBe('----a-B-C---|', { a: 'a failed: a bug in the task', B: 'B', C: 'C' });
    });
  });

  it('the output completes when the source completed and every task ended', () => {
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

  it('unsubscribing ends every running task and drops the queue', () => {
    scheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const requests = hot('    -a--bc-');
      const call = cold('        ----------r|');
      const output = requests.pipe(
        limitInFlight(
          { maxInFlight: 2, maxQueued: 1 },
          () => call,
          () => ['x'],
        ),
      );
      expectObservable(output, '^-----!').toBe('-------');
      // c waited in the queue: it never starts, not even when the running tasks end.
      expectSubscriptions(call.subscriptions).toBe(['-^----!', '----^-!']);
    });
  });

  it('a throw of counts errors the output, and no later value starts a task', () => {
    const broken = new Error('a bug in counts');
    const started: string[] = [];
    const unhandled = unhandledErrorsOf(() => {
      scheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
        const requests = hot('    -ab-c-|');
        const call = cold('        ----(r|)');
        const counts = (id: string): boolean => {
          if (id === 'b') throw broken;
          return true;
        };
        const output = requests.pipe(
          limitInFlight(
            { maxInFlight: 2, counts },
            (id) => {
              started.push(id);
              return call;
            },
            () => ['x'],
          ),
        );
        // The output fails at b with the thrown error; a's task and the source are unsubscribed.
        expectObservable(output).toBe('--#', undefined, broken);
        expectSubscriptions(requests.subscriptions).toBe('^-!');
        expectSubscriptions(call.subscriptions).toBe('-^!');
      });
    });
    expect(started).toEqual(['a']);
    expect(unhandled).toEqual([]);
  });

  it('a throw of project or refuse fails that task alone, and failed takes its place', () => {
    const unhandled = unhandledErrorsOf(() => {
      scheduler().run(({ hot, cold, expectObservable }) => {
        const requests = hot('    -ab--d--|');
        const output = requests.pipe(
          limitInFlight(
            { maxInFlight: 1, failed: (id, error) => [`${id} failed: ${(error as Error).message}`] },
            (id) => {
              if (id === 'd') throw new Error('project broke');
              return cold('---(A|)');
            },
            () => {
              throw new Error('refuse broke');
            },
          ),
        );
        // b is refused while a runs; d starts after a ended.
        expectObservable(output).toBe('--b-Ad--|', {
          A: 'A',
          b: 'b failed: refuse broke',
          d: 'd failed: project broke',
        });
      });
    });
    expect(unhandled).toEqual([]);
  });

  it('a throw of failed, or an error of what it returns, ends that task alone with nothing in its place', () => {
    const unhandled = unhandledErrorsOf(() => {
      scheduler().run(({ hot, cold, expectObservable }) => {
        const requests = hot('    -abc-----|');
        const output = requests.pipe(
          limitInFlight(
            {
              maxInFlight: 1,
              maxQueued: 2,
              failed: (id) => {
                if (id === 'a') throw new Error('a bug in failed');
                return cold('-x#', undefined, new Error('the replacement failed'));
              },
            },
            // a and b fail; each ends and passes its place on: b after a, c after b.
            (id) => (id === 'c' ? cold('-(C|)') : cold('-#')),
            () => ['refused'],
          ),
        );
        expectObservable(output).toBe('----x-C--|');
      });
    });
    expect(unhandled).toEqual([]);
  });

  describe('failures of tasks subscribed by hand', () => {
    it('a task that fails at its subscription gets its replacement, which unsubscribing ends', () => {
      scheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
        const requests = hot('    -ab---');
        const slow = cold('        ----r|');
        const broken = new Error('thrown by project');
        const output = requests.pipe(
          limitInFlight(
            { maxInFlight: 1, failed: () => slow },
            (id) => {
              if (id === 'a') throw broken;
              return [id];
            },
            (id) => [`${id} refused`],
          ),
        );
        // a keeps its place while its replacement runs, so b is refused; then the output is cut.
        expectObservable(output, '^---!').toBe('--x-', { x: 'b refused' });
        expectSubscriptions(slow.subscriptions).toBe('-^--!');
      });
    });

    it('the output completes after the replacement of a task that failed at its subscription', () => {
      scheduler().run(({ hot, cold, expectObservable }) => {
        const requests = hot('    -a-|');
        const output = requests.pipe(
          limitInFlight(
            { maxInFlight: 1, failed: () => cold('--r|') },
            () => {
              throw new Error('thrown by project');
            },
            () => [],
          ),
        );
        expectObservable(output).toBe('---r|');
      });
    });

    it('a task whose input is not observable fails alone', () => {
      scheduler().run(({ hot, expectObservable }) => {
        const requests = hot('    -ab-|');
        const output = requests.pipe(
          limitInFlight(
            { maxInFlight: 1, failed: (id) => [`${id} failed`] },
            (id) => (id === 'a' ? (42 as unknown as ObservableInput<string>) : [id]),
            (id) => [`${id} refused`],
          ),
        );
        expectObservable(output).toBe('-xb-|', { x: 'a failed', b: 'b' });
      });
    });
  });

  describe('callbacks that throw', () => {
    it('a throw of counts during a synchronous subscription starts no task for the values after it', () => {
      const broken = new Error('a bug in counts');
      const started: string[] = [];
      const unhandled = unhandledErrorsOf(() => {
        scheduler().run(({ expectObservable }) => {
          // Emits inside its subscription, before limitInFlight has its teardown.
          const requests = from(['a', 'b', 'c']);
          const output = requests.pipe(
            limitInFlight(
              {
                maxInFlight: 4,
                counts: (id) => {
                  if (id === 'a') throw broken;
                  return true;
                },
              },
              (id) => {
                started.push(id);
                return [id];
              },
              () => ['x'],
            ),
          );
          expectObservable(output).toBe('#', undefined, broken);
        });
      });
      expect(started).toEqual([]);
      expect(unhandled).toEqual([]);
    });
  });

  describe('checks of the configuration', () => {
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
});
