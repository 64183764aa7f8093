/**
 * The client side of a sign-in after `notifications/initialized` (docs/sign-in.md#sign-in-consent):
 * the sign-in never opens a browser then, it asks the client with a URL
 * elicitation. The sign-in is made once per process (src/cli/signInSetup.ts) and holds the
 * {@link ConsentRelay}'s port; each client connection binds its own {@link sessionConsent} to it.
 */
import { Subscription, filter, merge, take } from 'rxjs';
import { cancelledFrame, elicitationCompleteFrame } from '../codec/input/step.js';
import { BridgeError } from '../protocol/bridgeError.js';
import { CLIENT_CANCEL_REASON } from '../protocol/cancelReasons.js';
import type { Frame } from '../protocol/jsonrpc.js';
import { isObject, request } from '../protocol/jsonrpc.js';
import type { Logger } from '../ports/logger.js';
import type { Session } from './session.js';
import type { ConsentPort, ConsentRelay } from '../ports/signIn.js';

const gone = (): BridgeError =>
  new BridgeError('closed', { detail: 'the client closed the connection before the sign-in completed' });

/** Nobody to ask: no connection, or one that has not initialized. */
const UNBOUND: ConsentPort = {
  phase: () => 'initializing',
  clientSupportsUrl: () => false,
  askUrl: () => Promise.reject(gone()),
  complete: () => undefined,
};

export function createConsentRelay(
  options: { readonly browserWithoutUrlElicitation?: boolean } = {},
): ConsentRelay {
  // The ports bound now, newest last: the newest one asks. Several are bound at once only under
  // the HTTP front end (one connection per session, docs/serve.md#serve-sessions); when the newest
  // ends, the one before it asks again.
  const ports: ConsentPort[] = [];
  const bound = (): ConsentPort => ports.at(-1) ?? UNBOUND;
  return {
    ...(options.browserWithoutUrlElicitation === true ? { browserWithoutUrlElicitation: true } : {}),
    port: {
      phase: () => bound().phase(),
      clientSupportsUrl: () => bound().clientSupportsUrl(),
      askUrl: (input) => bound().askUrl(input),
      complete: (elicitationId) => bound().complete(elicitationId),
    },
    bind(port) {
      ports.push(port);
      return () => {
        const at = ports.lastIndexOf(port);
        if (at >= 0) ports.splice(at, 1);
      };
    },
  };
}

const ACTIONS: ReadonlySet<string> = new Set(['accept', 'decline', 'cancel']);

/** True when the client declared `elicitation.url` (2025-11-25: an object under `url`). */
export function declaresUrlElicitation(capabilities: unknown): boolean {
  const elicitation = isObject(capabilities) ? capabilities['elicitation'] : undefined;
  return isObject(elicitation) && isObject(elicitation['url']);
}

/**
 * The consent port of one connection. `send` writes a frame to the client at once (the caller
 * merges it into the output), so a completion precedes the result of the request it belongs to.
 *
 * Rules (test/oauth/consent.test.ts):
 * 1. `initializing` until `notifications/initialized` arrived in state ready, then `ready`
 * 2. the question is `elicitation/create` with a bridge id `b-N` of the connection's counter, and
 *    the answer comes through the open bridge requests of the session (`session.answers$`)
 * 3. an answer that is an error or not an action of the schema counts as `cancel` (with a warning)
 * 4. an abort of the signal (client cancel of the request behind it) sends `notifications/cancelled`
 *    for the question and rejects
 * 5. the end of the connection rejects a waiting question
 */
export function sessionConsent(session: Session, send: (frame: Frame) => void, logger: Logger): ConsentPort {
  return {
    phase: () => (session.initialized ? 'ready' : 'initializing'),
    clientSupportsUrl: () => declaresUrlElicitation(session.client?.capabilities),
    askUrl: ({ url, message, elicitationId, signal }) =>
      new Promise((resolve, reject) => {
        if (signal.aborted) {
          reject(new BridgeError('closed', { detail: 'the request stopped before the sign-in completed' }));
          return;
        }
        const id = session.nextBridgeId();
        const subscription = new Subscription();
        let settled = false;
        const onAbort = (): void => {
          subscription.unsubscribe();
          send(cancelledFrame(id, CLIENT_CANCEL_REASON));
          reject(new BridgeError('closed', { detail: 'the request stopped before the sign-in completed' }));
        };
        const settle = (): void => {
          settled = true;
          signal.removeEventListener('abort', onAbort);
          subscription.unsubscribe();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        // The answer is watched before the question goes out, so that none is missed.
        subscription.add(
          merge(session.answers$.pipe(filter((answer) => answer.id === id)), session.aborted$)
            .pipe(take(1))
            .subscribe((event) => {
              settle();
              if (!('id' in event)) {
                reject(gone());
                return;
              }
              const action = event.result?.['action'];
              if (typeof action === 'string' && ACTIONS.has(action)) {
                resolve(action as 'accept' | 'decline' | 'cancel');
                return;
              }
              logger.log(
                'bridge',
                'warn',
                'the client answered the URL elicitation of the sign-in with an error or an invalid result',
              );
              resolve('cancel');
            }),
        );
        if (!settled) send(request(id, 'elicitation/create', { mode: 'url', message, url, elicitationId }));
      }),
    complete: (elicitationId) => send(elicitationCompleteFrame(elicitationId)),
  };
}
