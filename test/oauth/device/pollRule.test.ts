import { describe, expect, it } from 'vitest';
import { nextPollStep } from '../../../src/oauth/device/pollRule.js';

describe('device grant poll rule', () => {
  it('keeps the interval while authorization is pending', () => {
    expect(nextPollStep('authorization_pending', 5000)).toEqual({ kind: 'wait', intervalMs: 5000 });
  });
  it('adds 5 s on slow_down, cumulatively', () => {
    expect(nextPollStep('slow_down', 5000)).toEqual({ kind: 'wait', intervalMs: 10000 });
    expect(nextPollStep('slow_down', 10000)).toEqual({ kind: 'wait', intervalMs: 15000 });
  });
  it('ends on access_denied and expired_token', () => {
    expect(nextPollStep('access_denied', 5000)).toEqual({ kind: 'fail', code: 'access_denied' });
    expect(nextPollStep('expired_token', 5000)).toEqual({ kind: 'fail', code: 'expired_token' });
  });
});
