/**
 * The polling of the device grant on a virtual clock (src/oauth/device/poll.ts, RFC 8628 §3.5,
 * docs/sign-in.md#sign-in-device-code): the waits it asks for, in order, and how each answer of
 * the token endpoint ends or continues it. No real time passes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BridgeError } from '../../../src/protocol/bridgeError.js';
import { nodeSleep, pollForTokens } from '../../../src/oauth/device/poll.js';
import type { PollAnswer, Sleep } from '../../../src/oauth/device/poll.js';

const TOKENS = { access_token: 'at-1', token_type: 'bearer' };

/** A virtual clock: each wait moves it ahead at once; past `limitMs`, the time limit aborts. */
function virtualClock(limitMs = Number.POSITIVE_INFINITY) {
  const stop = new AbortController();
  const waits: number[] = [];
  let now = 0;
  const sleep: Sleep = (ms, signal) => {
    waits.push(ms);
    if (now + ms >= limitMs) {
      now = limitMs;
      stop.abort(new BridgeError('sign_in_timeout', { detail: `${limitMs} ms` }));
      return Promise.reject(signal.reason as Error);
    }
    now += ms;
    return Promise.resolve();
  };
  return { sleep, waits, signal: stop.signal, now: () => now };
}

/** The token endpoint's answers in order; the times (virtual) at which each was asked. */
function endpoint(answers: readonly PollAnswer[], clock: { now: () => number }) {
  const asked: number[] = [];
  const ask = (): Promise<PollAnswer> => {
    asked.push(clock.now());
    const answer = answers[asked.length - 1];
    return answer === undefined ? Promise.reject(new Error('asked once too often')) : Promise.resolve(answer);
  };
  return { ask, asked };
}

const error = (code: string): PollAnswer => ({ kind: 'error', code });
const tokens: PollAnswer = { kind: 'tokens', tokens: TOKENS };

describe('the device grant polls the token endpoint', () => {
  it('waits the interval before each request and keeps it while authorization is pending', async () => {
    const clock = virtualClock();
    const server = endpoint([error('authorization_pending'), error('authorization_pending'), tokens], clock);
    await expect(
      pollForTokens({ intervalMs: 5000, ask: server.ask, sleep: clock.sleep, signal: clock.signal }),
    ).resolves.toEqual(TOKENS);
    expect(clock.waits).toEqual([5000, 5000, 5000]);
    expect(server.asked).toEqual([5000, 10000, 15000]);
  });

  it('adds 5 s at each slow_down, for every later request', async () => {
    const clock = virtualClock();
    const server = endpoint(
      [error('slow_down'), error('slow_down'), error('authorization_pending'), tokens],
      clock,
    );
    await pollForTokens({ intervalMs: 5000, ask: server.ask, sleep: clock.sleep, signal: clock.signal });
    expect(clock.waits).toEqual([5000, 10000, 15000, 15000]);
    expect(server.asked).toEqual([5000, 15000, 30000, 45000]);
  });

  it('ends with sign_in_denied at access_denied, and asks no more', async () => {
    const clock = virtualClock();
    const server = endpoint([error('authorization_pending'), error('access_denied'), tokens], clock);
    await expect(
      pollForTokens({ intervalMs: 2000, ask: server.ask, sleep: clock.sleep, signal: clock.signal }),
    ).rejects.toMatchObject({ code: 'sign_in_denied', detail: 'access_denied' });
    expect(server.asked).toEqual([2000, 4000]);
  });

  it('ends with sign_in_timeout at expired_token', async () => {
    const clock = virtualClock();
    const server = endpoint([error('expired_token')], clock);
    await expect(
      pollForTokens({ intervalMs: 5000, ask: server.ask, sleep: clock.sleep, signal: clock.signal }),
    ).rejects.toMatchObject({ code: 'sign_in_timeout', detail: 'the device code expired (expired_token)' });
    expect(server.asked).toEqual([5000]);
  });

  it('ends with sign_in_error at any other error code', async () => {
    const clock = virtualClock();
    const server = endpoint([error('invalid_grant')], clock);
    await expect(
      pollForTokens({ intervalMs: 5000, ask: server.ask, sleep: clock.sleep, signal: clock.signal }),
    ).rejects.toMatchObject({ code: 'sign_in_error', detail: 'the error code is invalid_grant' });
  });

  it('ends at the time limit in the middle of a wait, without another request', async () => {
    const clock = virtualClock(12_000);
    const server = endpoint(
      Array.from({ length: 10 }, () => error('authorization_pending')),
      clock,
    );
    await expect(
      pollForTokens({ intervalMs: 5000, ask: server.ask, sleep: clock.sleep, signal: clock.signal }),
    ).rejects.toMatchObject({ code: 'sign_in_timeout', detail: '12000 ms' });
    expect(server.asked).toEqual([5000, 10000]);
  });
});

describe('nodeSleep, the real clock of the sign-in', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after the interval, and rejects at once with the reason of an abort', async () => {
    vi.useFakeTimers();
    const stop = new AbortController();
    let slept = false;
    const first = nodeSleep(5000, stop.signal).then(() => (slept = true));
    await vi.advanceTimersByTimeAsync(4999);
    expect(slept).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await first;
    expect(slept).toBe(true);
    const second = nodeSleep(5000, stop.signal);
    const reason = new BridgeError('sign_in_timeout', { detail: '1 s' });
    stop.abort(reason);
    await expect(second).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });
});
