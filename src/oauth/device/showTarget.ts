/**
 * Shows the verification URL and the user code of a device grant (docs/sign-in.md#sign-in-device-code):
 * after `initialized`, to a client that declared URL elicitation, as one URL elicitation through
 * the show path of the browser sign-in (showSignIn.ts: a decline starts the cooldown); else as one
 * line on stderr. No browser opens: the grant is for machines without one. The user code is meant
 * to be shown (RFC 8628 §3.3); the device code never is.
 */
import type { InteractiveDeps, InteractiveSettings, InteractiveState } from '../interactiveSettings.js';
import { show } from '../showSignIn.js';
import type { VerificationTarget } from './verification.js';

/**
 * The text of the URL elicitation, with the user code: to check on a page that shows it
 * (`verification_uri_complete`), else to enter there.
 */
export const deviceMessage = (target: VerificationTarget): string =>
  target.complete
    ? `The upstream server needs a new sign-in. Open the URL, check that it shows the code ${target.userCode}, and sign in at the authorization server.`
    : `The upstream server needs a new sign-in. Open the URL, enter the code ${target.userCode}, and sign in at the authorization server.`;

/** True when the client is asked (URL elicitation), false when the stderr line shows the URL. */
export const asksClient = (deps: InteractiveDeps): boolean =>
  deps.consent.phase() === 'ready' && deps.consent.clientSupportsUrl();

/**
 * Shows `target`; resolves with the elicitation id of an accepted question (to complete once the
 * grant ends), or undefined after the stderr line. Rejects when the client declines.
 */
export async function showTarget(
  settings: InteractiveSettings,
  deps: InteractiveDeps,
  state: InteractiveState,
  target: VerificationTarget,
  signal: AbortSignal,
): Promise<string | undefined> {
  if (!asksClient(deps)) {
    deps.writeSignInLine(`${target.url} with the code ${target.userCode}`);
    return undefined;
  }
  // The URL elicitation of showSignIn.ts, never its browser: the client shows the URL.
  return show(
    { ...settings, browserWithoutUrlElicitation: false },
    deps,
    state,
    { authorizationUrl: target.url, startUrl: undefined, message: deviceMessage(target) },
    signal,
  );
}
