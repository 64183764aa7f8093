/**
 * The client side of a sign-in after `notifications/initialized` (docs/sign-in.md#sign-in-consent):
 * the sign-in never opens a browser then, it asks the client with a URL
 * elicitation. The sign-in is made once per process (src/cli/signInSetup.ts) and holds the
 * {@link ConsentRelay}'s port; each client connection binds its own {@link sessionConsent} to it,
 * and names it in each of its exchanges, so the sign-in of a request asks the client of that
 * request (src/bridge/sessionUpstream.ts).
 */
import { Subscription, filter, map, merge, take } from 'rxjs';
import type { ClientAnswer } from '../../operators/driveInputRounds.js';
import { cancelledFrame, elicitationCompleteFrame } from '../codec/input/step.js';
import { BridgeError } from '../protocol/bridgeError.js';
import { CLIENT_CANCEL_REASON } from '../protocol/cancelReasons.js';
import type { Frame } from '../protocol/jsonrpc.js';
import { isObject, request } from '../protocol/jsonrpc.js';
import type { Logger } from '../ports/logger.js';
import type { Abort, Session } from './session.js';
import type { ConsentPort, ConsentRelay } from '../ports/signIn.js';

const gone = (): BridgeError =>
  new BridgeError('closed', { detail: 'the client closed the connection before the sign-in completed' });
const stopped = (): BridgeError =>
  new BridgeError('closed', { detail: 'the request stopped before the sign-in completed' });

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
  // The ports bound now, newest last. The bridge names the port of the connection in each
  // exchange (ExchangeOptions.consent), and a sign-in asks that one (docs/serve.md#serve-routing);
  // this port is for a challenge that names none (an upstream used outside the bridge), where the
  // newest connection asks.
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
 * Rules (test/oauth/consent.test.ts, test/bridge/consentPort.test.ts):
 * 1. `initializing` until the initialize result was written (state ready), then `ready`: a
 *    sign-in during `initialize` opens the browser, any later one asks this client
 * 2. a question waits for the client's `notifications/initialized` (a client may send a request
 *    before it), so no request reaches a client that has not initialized and no browser opens
 *    instead of the question (docs/sign-in.md#sign-in-consent); the sign-in limit bounds the wait
 * 3. the question is `elicitation/create` with a bridge id `b-N` of the connection's counter, and
 *    the answer comes through the pending table of the input rounds (`session.answers$`)
 * 4. an answer that is an error or not an action of the schema counts as `cancel` (with a warning)
 * 5. an abort of the signal (client cancel of the request behind it) sends `notifications/cancelled`
 *    for a question that went out, and rejects
 * 6. the end of the connection rejects a waiting question
 */
export function sessionConsent(session: Session, send: (frame: Frame) => void, logger: Logger): ConsentPort {
  return {
    phase: () => (session.initialized || session.phase === 'ready' ? 'ready' : 'initializing'),
    clientSupportsUrl: () => declaresUrlElicitation(session.client?.capabilities),
    askUrl: ({ url, message, elicitationId, signal }) =>
      new Promise((resolve, reject) => {
        if (signal.aborted) {
          reject(stopped());
          return;
        }
        const subscription = new Subscription();
        // The bridge id of the question, once it went out.
        let id: string | undefined;
        const onAbort = (): void => {
          subscription.unsubscribe();
          if (id !== undefined) send(cancelledFrame(id, CLIENT_CANCEL_REASON));
          reject(stopped());
        };
        const settle = (): void => {
          signal.removeEventListener('abort', onAbort);
          subscription.unsubscribe();
        };
        const answered = (event: ClientAnswer | Abort): void => {
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
        };
        const ask = (): void => {
          const asked = session.nextBridgeId();
          id = asked;
          // The answer is watched before the question goes out, so that none is missed.
          subscription.add(
            merge(session.answers$.pipe(filter((answer) => answer.id === asked)), session.aborted$)
              .pipe(take(1))
              .subscribe(answered),
          );
          if (!subscription.closed) {
            send(request(asked, 'elicitation/create', { mode: 'url', message, url, elicitationId }));
          }
        };
        signal.addEventListener('abort', onAbort, { once: true });
        subscription.add(
          merge(session.initialized$.pipe(map(() => undefined)), session.aborted$)
            .pipe(take(1))
            .subscribe((abort) => {
              if (abort === undefined) ask();
              else answered(abort);
            }),
        );
      }),
    complete: (elicitationId) => send(elicitationCompleteFrame(elicitationId)),
  };
}
