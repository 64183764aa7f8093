/**
 * The polling of the device grant (RFC 8628 §3.4–3.5, docs/sign-in.md#sign-in-device-code): wait
 * the interval, ask the token endpoint, and follow {@link nextPollStep} until tokens come, the
 * server ends the grant, or `signal` aborts (the time limit, a stopped request, a lost lock). The
 * clock is a parameter, so the rules run on a virtual clock in tests (the sign-in waits with node
 * timers, as interactive.ts does).
 */
import { BridgeError } from '../../protocol/bridgeError.js';
import type { TokenResponse } from '../tokens.js';
import { nextPollStep } from './pollRule.js';

/** One answer of the token endpoint: tokens, or an OAuth error code (RFC 6749 §5.2). */
export type PollAnswer =
  | { readonly kind: 'tokens'; readonly tokens: TokenResponse }
  | { readonly kind: 'error'; readonly code: string };

/** Resolves after `ms`, or rejects with the abort reason of `signal`. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface PollInput {
  /** The first interval: the server's `interval`, else 5 s. */
  readonly intervalMs: number;
  /** One token request with the device code. */
  readonly ask: () => Promise<PollAnswer>;
  readonly sleep: Sleep;
  readonly signal: AbortSignal;
}

/** Node's timers, ending early with the reason of `signal`. */
export const nodeSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });

/** The error that ends the grant for the server's error `code` (docs/errors.md#errors-sign-in). */
export function pollFailure(code: string): BridgeError {
  if (code === 'access_denied') return new BridgeError('sign_in_denied', { detail: 'access_denied' });
  if (code === 'expired_token') {
    return new BridgeError('sign_in_timeout', { detail: 'the device code expired (expired_token)' });
  }
  return new BridgeError('sign_in_error', { detail: `the error code is ${code}` });
}

/** Polls until the token endpoint gives tokens; rejects with {@link pollFailure} or the abort reason. */
export async function pollForTokens(input: PollInput): Promise<TokenResponse> {
  let intervalMs = input.intervalMs;
  for (;;) {
    await input.sleep(intervalMs, input.signal);
    if (input.signal.aborted) throw input.signal.reason as Error;
    const answer = await input.ask();
    if (answer.kind === 'tokens') return answer.tokens;
    const step = nextPollStep(answer.code, intervalMs);
    if (step.kind === 'fail') throw pollFailure(step.code);
    intervalMs = step.intervalMs;
  }
}
