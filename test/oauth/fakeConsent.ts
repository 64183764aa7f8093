/**
 * A ConsentPort for the in-process sign-in tests (test/oauth/signIn*.test.ts) whose answers a
 * test scripts; it records what the sign-in asked and which questions it completed.
 */
import type { ConsentPort } from '../../src/ports/signIn.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';
import { browse } from '../fixtures/oauth/testBrowser.js';

export type ConsentAnswer = 'accept' | 'decline' | 'cancel' | 'hang' | 'reject';

/** A ConsentPort whose answers a test scripts; it records what the sign-in asked. */
export interface FakeConsent extends ConsentPort {
  phaseNow: 'initializing' | 'ready';
  supportsUrl: boolean;
  answer: ConsentAnswer;
  /** Whether an accepted question also walks the URL with the test browser. */
  browseOnAccept: boolean;
  readonly asked: Array<{ url: string; message: string; elicitationId: string }>;
  readonly completed: string[];
}

export function fakeConsent(ca: string): FakeConsent {
  const consent: FakeConsent = {
    phaseNow: 'initializing',
    supportsUrl: true,
    answer: 'accept',
    browseOnAccept: true,
    asked: [],
    completed: [],
    phase: () => consent.phaseNow,
    clientSupportsUrl: () => consent.supportsUrl,
    askUrl({ url, message, elicitationId, signal }) {
      consent.asked.push({ url, message, elicitationId });
      const answer = consent.answer;
      if (answer === 'hang') {
        return new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('the question was cancelled')), {
            once: true,
          }),
        );
      }
      if (answer === 'reject') {
        // What the bridge's relay rejects with when the connection ends (src/bridge/consent.ts).
        return Promise.reject(
          new BridgeError('closed', {
            detail: 'the client closed the connection before the sign-in completed',
          }),
        );
      }
      if (answer === 'accept' && consent.browseOnAccept) void browse(url, { ca }).catch(() => undefined);
      return Promise.resolve(answer);
    },
    complete: (id) => void consent.completed.push(id),
  };
  return consent;
}
