/**
 * The bound of a session's unread output (docs/serve.md#serve-limits) on a virtual clock, with
 * plain outlets whose unwritten bytes the test sets: a write that finds more than the cap waiting
 * overflows the session once; a client that reads a large answer does not; a session that writes
 * nothing more is found by the check once its output stayed above the cap for a whole interval.
 */
import { describe, expect, it } from 'vitest';
import { createSessionOutput } from '../../../src/edges/httpFront/sessionOutput.js';
import { virtualClock } from './sessionFakes.js';

function outlet(writableLength = 0) {
  return {
    writableLength,
    destroyed: false,
    destroy() {
      this.destroyed = true;
    },
  };
}

function setup(waiting = 0) {
  const clock = virtualClock();
  const overflows: number[] = [];
  const output = createSessionOutput({
    maxBytes: 1000,
    checkEveryMs: 15_000,
    scheduler: clock.scheduler,
    waiting: () => waiting,
    onOverflow: (queued) => overflows.push(queued),
  });
  return { clock, overflows, output };
}

describe('the unread output of a session', () => {
  it('admits writes while at most the cap waits, and overflows once beyond it', () => {
    const { overflows, output } = setup();
    const a = outlet(600);
    const b = outlet(400);
    output.track(a);
    output.track(b);
    expect(output.admits()).toBe(true);
    b.writableLength = 401;
    expect(output.admits()).toBe(false);
    expect(output.admits()).toBe(false);
    expect(overflows).toEqual([1001]);
  });

  it('counts the frames waiting for the GET stream', () => {
    const { overflows, output } = setup(1001);
    expect(output.admits()).toBe(false);
    expect(overflows).toEqual([1001]);
  });

  it('forgets an outlet once it closed', () => {
    const { overflows, output } = setup();
    const untrack = output.track(outlet(5000));
    untrack();
    expect(output.queued).toBe(0);
    expect(output.admits()).toBe(true);
    expect(overflows).toEqual([]);
  });

  it('ends a session that writes nothing more after two checks above the cap without shrinking', () => {
    const { clock, overflows, output } = setup();
    output.track(outlet(8000));
    clock.advance(15_000);
    expect(overflows).toEqual([]);
    clock.advance(15_000);
    expect(overflows).toEqual([8000]);
  });

  it('keeps a session whose client reads a large answer, even when a check sees it above the cap', () => {
    const { clock, overflows, output } = setup();
    const answer = outlet(8000);
    output.track(answer);
    clock.advance(15_000);
    answer.writableLength = 3000;
    clock.advance(15_000);
    answer.writableLength = 0;
    clock.advance(60_000);
    expect(overflows).toEqual([]);
  });

  it('destroys every outlet on closeAll, and checks no more once stopped', () => {
    const { clock, overflows, output } = setup();
    const a = outlet(8000);
    const b = outlet(0);
    output.track(a);
    output.track(b);
    output.stop();
    clock.advance(60_000);
    expect(overflows).toEqual([]);
    output.closeAll();
    expect([a.destroyed, b.destroyed]).toEqual([true, true]);
    expect(output.queued).toBe(0);
  });
});
