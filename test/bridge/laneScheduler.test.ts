/**
 * The lane scheduler of a connection (its time limits and slow-request lines) and the stops by
 * id of the session, in virtual time: every action runs at its own time, in the order of its
 * time, a cancelled action never runs, and a finished connection keeps no scheduled action.
 */
import { VirtualTimeScheduler } from 'rxjs';
import type { SchedulerAction } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLaneScheduler } from '../../src/bridge/laneScheduler.js';
import { createSession } from '../../src/bridge/session.js';
import type { Abort } from '../../src/bridge/session.js';

/** A queue on a virtual clock, and a log of `name@time` for each entry that fired. */
function harness() {
  const scheduler = new VirtualTimeScheduler();
  const lanes = createLaneScheduler(scheduler);
  const fired: string[] = [];
  const queue = {
    add: <A>(delayMs: number, fire: (arg: A) => void, arg?: A) => {
      const action = lanes.schedule(
        function (this: SchedulerAction<A>, state?: A) {
          fire(state as A);
        },
        delayMs,
        arg,
      );
      return { cancel: () => action.unsubscribe(), action };
    },
    dispose: () => lanes.dispose(),
  };
  const add = (name: string, delayMs: number) =>
    queue.add(delayMs, () => fired.push(`${name}@${scheduler.now()}`));
  /** Runs the clock up to `time` (inclusive). */
  const runTo = (time: number) => {
    scheduler.maxFrames = time;
    scheduler.flush();
  };
  return { scheduler, queue, fired, add, runTo };
}

describe('the lane scheduler', () => {
  it('passes its state to a shared work function, and an unsubscribe called as a method of any action drops only that action', () => {
    const { scheduler, queue, fired, runTo } = harness();
    const fire = (name: string): void => void fired.push(`${name}@${scheduler.now()}`);
    const a = queue.add(10, fire, 'a');
    const b = queue.add(10, fire, 'b');
    queue.add(10, fire, 'c');
    const unsubscribeB = b.action.unsubscribe.bind(b.action);
    unsubscribeB();
    expect(b.action.closed).toBe(true);
    b.cancel();
    runTo(5);
    a.cancel();
    runTo(100);
    expect(fired).toEqual(['c@10']);
  });

  it('fires each entry at its own time, also with different delays added at different times', () => {
    const { scheduler, fired, add, runTo } = harness();
    add('a', 100);
    add('b', 30);
    add('c', 100);
    scheduler.schedule(() => {
      add('d', 30); // due at 80, before a and c
      add('e', 100); // due at 150
    }, 50);
    runTo(1_000);
    expect(fired).toEqual(['b@30', 'd@80', 'a@100', 'c@100', 'e@150']);
  });

  it('never fires a cancelled entry, and the entries after it keep their times', () => {
    const { fired, add, runTo } = harness();
    const a = add('a', 10);
    add('b', 10);
    const c = add('c', 20);
    a.cancel();
    c.cancel();
    c.cancel(); // idempotent
    runTo(1_000);
    expect(fired).toEqual(['b@10']);
  });

  it('fires the head at its time after the entry the action was armed for was cancelled', () => {
    const { scheduler, fired, add, runTo } = harness();
    const first = add('first', 100);
    scheduler.schedule(() => add('second', 100), 40);
    scheduler.schedule(() => first.cancel(), 60);
    runTo(1_000);
    expect(fired).toEqual(['second@140']);
  });

  it('an entry added from a firing entry fires at its own time', () => {
    const { queue, scheduler, fired, runTo } = harness();
    const every = (n: number): void => {
      fired.push(`tick${n}@${scheduler.now()}`);
      if (n < 3) queue.add(30, () => every(n + 1));
    };
    queue.add(10, () => every(1));
    runTo(1_000);
    expect(fired).toEqual(['tick1@10', 'tick2@40', 'tick3@70']);
  });

  it('dispose drops every entry and every scheduled action', () => {
    const { scheduler, queue, fired, add, runTo } = harness();
    add('a', 10);
    add('b', 50);
    queue.dispose();
    expect(scheduler.actions).toHaveLength(0);
    runTo(1_000);
    expect(fired).toEqual([]);
  });

  it('caps a delay above 2^31-1 ms there', () => {
    const { fired, add, runTo } = harness();
    add('far', 10 * 2_147_483_647);
    runTo(2_147_483_647);
    expect(fired).toEqual(['far@2147483647']);
  });
});

describe('the stops of the session, by client id', () => {
  const abortOf = (reason: string): Abort => ({ reason });

  it('a client cancel stops every request with that id, and only those', () => {
    const session = createSession();
    const stopped: string[] = [];
    const stop = (name: string) => (abort: Abort) => stopped.push(`${name}: ${abort.reason}`);
    const a = stop('a');
    session.track(7, a);
    session.track(7, stop('a twin'));
    session.track('7', stop('string 7'));
    session.track(8, stop('b'));
    session.cancel(7);
    expect(stopped).toEqual([
      'a: the client canceled the request',
      'a twin: the client canceled the request',
    ]);
  });

  it('an untracked request is not stopped any more', () => {
    const session = createSession();
    const stopped: string[] = [];
    const a = (): void => void stopped.push('a');
    const b = (): void => void stopped.push('b');
    session.track(1, a);
    session.track(1, b);
    session.untrack(1, a);
    session.cancel(1);
    session.untrack(1, b);
    session.cancel(1);
    expect(stopped).toEqual(['b']);
  });

  it('untrack removes the request it names, also when an older one has the same id', () => {
    const session = createSession();
    const stopped: string[] = [];
    const older = (): void => void stopped.push('older');
    const newer = (): void => void stopped.push('newer');
    session.track(1, older);
    session.track(1, newer);
    session.untrack(1, newer);
    session.untrack('1', older);
    session.cancel(1);
    expect(stopped).toEqual(['older']);
  });

  it('abortAll stops every running request, and a request tracked later at once', () => {
    const session = createSession();
    const stopped: string[] = [];
    session.track(1, (abort) => stopped.push(`1: ${abort.reason}`));
    session.track('x', (abort) => stopped.push(`x: ${abort.reason}`));
    session.abortAll(abortOf('the client closed the connection'));
    session.track(2, (abort) => stopped.push(`2: ${abort.reason}`));
    expect(stopped).toEqual([
      '1: the client closed the connection',
      'x: the client closed the connection',
      '2: the client closed the connection',
    ]);
  });
});
