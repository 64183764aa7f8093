/**
 * What the device grant does after one token-endpoint answer (RFC 8628 §3.5):
 * `authorization_pending` keeps the interval, `slow_down` adds 5 s to it for
 * this and every later request, `access_denied` and `expired_token` end the
 * sign-in, any other error ends it too (the server said no in a way we cannot
 * wait out).
 */
export type PollStep =
  { readonly kind: 'wait'; readonly intervalMs: number } | { readonly kind: 'fail'; readonly code: string };

/** RFC 8628 §3.2: without `interval` in the answer, clients wait 5 s. */
export const defaultIntervalMs = 5000;

/** RFC 8628 §3.5: each `slow_down` adds 5 s. */
export const slowDownStepMs = 5000;

/** The next step after the token endpoint answered with OAuth error `error`. */
export const nextPollStep = (error: string, intervalMs: number): PollStep => {
  if (error === 'authorization_pending') return { kind: 'wait', intervalMs };
  if (error === 'slow_down') return { kind: 'wait', intervalMs: intervalMs + slowDownStepMs };
  return { kind: 'fail', code: error };
};
