/**
 * Shows the authorization URL of an interactive sign-in (docs/sign-in.md#sign-in-browser,
 * docs/sign-in.md#sign-in-consent): the browser gets the start URL, or the client is asked with a
 * URL elicitation; a decline or a dismissed question starts the cooldown.
 */
import { BridgeError } from '../protocol/bridgeError.js';
import {
  CONSENT_MESSAGE,
  DECLINE_COOLDOWN_MS,
  SCOPE,
  type InteractiveDeps,
  type InteractiveSettings,
  type InteractiveState,
} from './interactiveSettings.js';
import { viaBrowser } from './signInPath.js';

/** Rejects with the abort reason as soon as `signal` aborts. */
export function raced<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', stop, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', stop);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(error instanceof Error ? error : new Error('the sign-in step failed'));
      },
    );
  });
}

/**
 * Shows the authorization URL: the browser before `initialized` (and after it, for a client
 * without URL elicitation where the profile says so), the client's question after.
 */
export async function show(
  settings: InteractiveSettings,
  deps: InteractiveDeps,
  state: InteractiveState,
  url: {
    readonly authorizationUrl: string;
    readonly startUrl: string | undefined;
    /** The text of the URL elicitation; default CONSENT_MESSAGE (the device grant names its user code). */
    readonly message?: string;
  },
  signal: AbortSignal,
): Promise<string | undefined> {
  if (viaBrowser(settings, deps.consent)) {
    if (settings.noBrowser) return undefined;
    // The opener logs its own failure; without a start URL (no random data, docs/sign-in.md#sign-in-receiver) it never runs.
    // Either way the sign-in waits: the sign-in line shows the URL.
    if (url.startUrl === undefined) {
      deps.logger.log(
        SCOPE,
        'warn',
        'the browser did not open: open the URL of the sign-in line in a browser',
      );
    } else {
      await deps.openBrowser(url.startUrl, {
        env: deps.env,
        secretVariables: settings.secretVariables,
        logger: deps.logger,
      });
    }
    return undefined;
  }
  state.elicitations += 1;
  const elicitationId = `sign-in-${state.elicitations}`;
  const asked = deps.consent.askUrl({
    url: url.authorizationUrl,
    message: url.message ?? CONSENT_MESSAGE,
    elicitationId,
    signal,
  });
  const action = await raced(asked, signal).catch((error: unknown) => {
    // A cancelled request or a time limit logs its own line (the signal); this is the client.
    if (!signal.aborted) {
      deps.logger.log(SCOPE, 'warn', 'The client closed the connection before the sign-in completed.');
    }
    throw error;
  });
  if (action === 'accept') return elicitationId;
  deps.logger.log(SCOPE, 'info', 'The user declined the sign-in.');
  // A dismissed question (cancel) is a refusal as well as a decline: both start the cooldown, or
  // the next request would show the question again at once (README.md "Sign-in and tokens").
  state.cooldownUntil = deps.now() + DECLINE_COOLDOWN_MS;
  throw new BridgeError('reauthorization_required', { detail: 'declined' });
}
