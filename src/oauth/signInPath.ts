/**
 * The way an interactive sign-in shows its URL, and the refusals that come before any receiver
 * starts or any line is written (docs/sign-in.md#sign-in-consent, docs/sign-in.md#sign-in-sandbox,
 * docs/security.md#security-3, docs/security.md#security-4).
 */
import { BridgeError } from '../protocol/bridgeError.js';
import {
  SCOPE,
  type InteractiveDeps,
  type InteractiveSettings,
  type InteractiveState,
} from './interactiveSettings.js';
import type { ConsentPort } from '../ports/signIn.js';

/** Whether this sign-in shows its URL through the browser (else: a URL elicitation of the client). */
export function viaBrowser(settings: InteractiveSettings, consent: ConsentPort): boolean {
  return (
    consent.phase() !== 'ready' ||
    (settings.browserWithoutUrlElicitation === true && !consent.clientSupportsUrl())
  );
}

/**
 * The checks that fail at once, before a receiver starts or a line is written (docs/sign-in.md#sign-in-consent, docs/sign-in.md#sign-in-sandbox):
 * the sandbox, a decline cooldown, a client that cannot open a URL after `initialized`.
 */
export function refuseEarly(
  settings: InteractiveSettings,
  deps: InteractiveDeps,
  state: InteractiveState,
): BridgeError | undefined {
  if (settings.sandbox) {
    deps.logger.log(
      SCOPE,
      'err',
      'The bridge runs in a sandbox that allows no sign-in. Sign in once outside the sandbox.',
    );
    return new BridgeError('sandbox');
  }
  if (deps.consent.phase() !== 'ready') return undefined;
  const browser = viaBrowser(settings, deps.consent);
  if (deps.now() < state.cooldownUntil) {
    deps.logger.log(
      SCOPE,
      'warn',
      browser
        ? 'A sign-in in the browser did not complete a short time ago, thus the bridge does not open it again yet.'
        : 'A sign-in through the client did not complete a short time ago, thus the bridge does not ask again yet.',
    );
    return new BridgeError('reauthorization_required', { detail: 'cooldown' });
  }
  if (!browser && !deps.consent.clientSupportsUrl()) {
    return new BridgeError('reauthorization_required', { detail: 'no_consent' });
  }
  return undefined;
}
