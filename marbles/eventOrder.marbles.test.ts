import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { mergeInOrder } from '../operators/mergeInOrder.js';
import { createProtocolScheduler } from '../src/testing/scheduler.js';
import { unhandledErrorsOf } from './unhandledErrors.js';

const scheduler = (): TestScheduler =>
  createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

/** A frame with the number of its upstream arrival (undefined: made by the bridge). */
interface Stamped {
  readonly name: string;
  readonly seq?: number;
}
const sequenceOf = (value: Stamped): number | undefined => value.seq;

// Outbound (upper case) results R, S, inbound-turned-outbound listen events n, m, and u, a frame
// the bridge made itself (no upstream number).
const v: Record<string, Stamped> = {
  n: { name: 'tools/list_changed', seq: 1 },
  R: { name: 'result of tools/call', seq: 2 },
  m: { name: 'resources/updated', seq: 3 },
  S: { name: 'result of resources/read', seq: 4 },
  u: { name: 'gap replay' },
};

// docs/notifications.md#notifications-ordering: on stdio an event the upstream wrote before a result reaches
// the client before that result.
describe('mergeInOrder', () => {
  it('an event written before a result is emitted before it', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const results = cold('   ---R', v); // delivered first by its path
      const events = cold('    ---n', v); // written first by the upstream
      const expected = '       ---(nR)';
      expectObservable(mergeInOrder([results, events], { sequenceOf }), '^ 1s !').toBe(expected, v);
    });
  });

  it('values are released in the turn they arrived in', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const results = cold('   -R 8ms S', v);
      const events = cold('    -n 8ms m', v);
      const expected = '       -(nR) 5ms (mS)'; // frames 1 and 10
      expectObservable(mergeInOrder([results, events], { sequenceOf }), '^ 1s !').toBe(expected, v);
    });
  });

  it('values of different turns keep their turn order', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const results = cold('   -R', v);
      const events = cold('    --n', v); // a later turn: never moved before R
      expectObservable(mergeInOrder([results, events], { sequenceOf }), '^ 1s !').toBe('-Rn', v);
    });
  });

  it('a value without a number stays right after the value that arrived before it', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const results = cold('   -(Ru)', v);
      const events = cold('    -n', v);
      expectObservable(mergeInOrder([results, events], { sequenceOf }), '^ 1s !').toBe('-(nRu)', v);
    });
  });

  it('an error is passed on after the values held before it', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const results = cold('   --S', v);
      const events = cold('    --m#', v);
      const failed = cold<Stamped>('    --#');
      expectObservable(mergeInOrder([results, events, failed], { sequenceOf })).toBe('--(mS#)', v);
    });
  });

  it('completes when every source completed', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const results = cold('   -R|', v);
      const events = cold('    -n---|', v);
      expectObservable(mergeInOrder([results, events], { sequenceOf })).toBe('-(nR)|', v);
    });
  });

  it('a throw of sequenceOf errors the output at the end of its turn, without the values held in it', () => {
    const broken = new Error('a bug in sequenceOf');
    const throwsForM = (value: Stamped): number | undefined => {
      if (value.name === 'resources/updated') throw broken;
      return value.seq;
    };
    const unhandled = unhandledErrorsOf(() => {
      scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const results = cold('   -R---S', v);
        const events = cold('    -n---m', v); // m throws, in the turn of frame 5
        expectObservable(mergeInOrder([results, events], { sequenceOf: throwsForM }), '^ 1s !').toBe(
          '-(nR)#',
          v,
          broken,
        );
        expectSubscriptions(results.subscriptions).toBe('^----!');
      });
    });
    expect(unhandled).toEqual([]);
  });
});
