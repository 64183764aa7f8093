import { describe, expect, it } from 'vitest';
import { collectAnswers } from '../operators/collectAnswers.js';
import type { ClientAnswer } from '../src/codec/input/index.js';
import { createProtocolScheduler } from '../src/testing/scheduler.js';

const scheduler = () => createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));
const answer = (id: string, action = 'accept'): ClientAnswer => ({ id, result: { action } });
const ANSWERS = { a: answer('b-1'), b: answer('b-2'), d: answer('b-1', 'decline'), x: answer('b-99') };
const IDS = ['b-1', 'b-2'];

// marbles/README.md alphabet: lower case is inbound (client answers), upper case is outbound.
describe('collectAnswers', () => {
  it('all answers arrive before the round ends', () => {
    scheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      // #region all-answers
      const answers = hot('  --b--a--', ANSWERS);
      const subs = '         ^----!';
      const expected = '     --B--(AL|)';
      // #endregion all-answers
      expectObservable(answers.pipe(collectAnswers({ ids: IDS, timeoutMs: 100 }))).toBe(expected, {
        B: { type: 'answer', answer: ANSWERS.b },
        A: { type: 'answer', answer: ANSWERS.a },
        L: { type: 'all', answers: [ANSWERS.a, ANSWERS.b], waitedMs: 5 },
      });
      expectSubscriptions(answers.subscriptions).toBe(subs);
    });
  });

  it('answers to other ids and second answers are dropped', () => {
    scheduler().run(({ hot, expectObservable }) => {
      // #region dropped
      const answers = hot('  -axd-b-a', ANSWERS);
      const expected = '     -A---(BL|)';
      // #endregion dropped
      expectObservable(answers.pipe(collectAnswers({ ids: IDS, timeoutMs: 100 }))).toBe(expected, {
        A: { type: 'answer', answer: ANSWERS.a },
        B: { type: 'answer', answer: ANSWERS.b },
        L: { type: 'all', answers: [ANSWERS.a, ANSWERS.b], waitedMs: 5 },
      });
    });
  });

  it('the time limit ends the wait with the missing ids', () => {
    scheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      // #region timeout
      const answers = hot('  --b-------a', ANSWERS);
      const subs = '         ^-------!';
      const expected = '     --B-----(T|)';
      // #endregion timeout
      expectObservable(answers.pipe(collectAnswers({ ids: IDS, timeoutMs: 8 }))).toBe(expected, {
        B: { type: 'answer', answer: ANSWERS.b },
        T: { type: 'timeout', missing: ['b-1'] },
      });
      expectSubscriptions(answers.subscriptions).toBe(subs);
    });
  });

  it('a round without bridge requests ends at once', () => {
    scheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const answers = hot('  -a-', ANSWERS);
      expectObservable(answers.pipe(collectAnswers({ ids: [], timeoutMs: 8 }))).toBe('(L|)', {
        L: { type: 'all', answers: [], waitedMs: 0 },
      });
      expectSubscriptions(answers.subscriptions).toBe([]);
    });
  });

  describe('checks of the configuration', () => {
    it('refuses a negative time limit and repeated ids when it is built', () => {
      expect(() => collectAnswers({ ids: [], timeoutMs: -1 })).toThrow(RangeError);
      expect(() => collectAnswers({ ids: ['b-1', 'b-1'], timeoutMs: 1 })).toThrow(RangeError);
    });
  });
});
