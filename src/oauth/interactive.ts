/**
 * One interactive sign-in (docs/sign-in.md#sign-in-trigger–6.7, docs/errors.md#errors-sign-in, docs/sign-in.md#sign-in-sandbox): the loopback receiver
 * starts before anything is shown, the authorization URL is checked, one sign-in line is written,
 * then the browser opens (before `notifications/initialized`, unless `--no-browser`) or the client
 * is asked with a URL elicitation (after it); the redirect is awaited within `--sign-in-timeout`,
 * and the code is exchanged. The caller holds the sign-in lock.
 *
 * After `initialized`, a client that declared no URL elicitation gets the browser again where the
 * profile says so (`browserWithoutUrlElicitation`, the `mcp-bridge` profile: README.md "Sign-in
 * and tokens"), with the start URL and the cooldown of a failed sign-in; else (the reference rule
 * of `mcp-bridge-vscode`) it gets `reauthorization_required` with detail `no_consent` at once.
 */
import type { Logger } from '../ports/logger.js';
import { BridgeError, isBridgeError } from '../protocol/bridgeError.js';
import { formatDuration } from '../protocol/errors.js';
import { checkAuthorizationUrl } from './authorizationUrl.js';
import { authorizationRequest, codeError, exchangeCode, refusedClientCode, safeCode } from './flow.js';
import type { AuthorizationRequest } from './flow.js';
import {
  DECLINE_COOLDOWN_MS,
  SCOPE,
  type InteractiveDeps,
  type InteractiveInput,
  type InteractiveSettings,
  type InteractiveState,
} from './interactiveSettings.js';
import type { Receiver, RedirectResult } from './receiver.js';
import { raced, show } from './showSignIn.js';
import { refuseEarly, viaBrowser } from './signInPath.js';
import type { TokenResponse } from './tokens.js';
import { LockLostError } from './store/hold.js';

// The parts of the sign-in, for its callers (renewal.ts, upstreamAuth.ts) and the tests.
export { CONSENT_MESSAGE, DECLINE_COOLDOWN_MS } from './interactiveSettings.js';
export type {
  InteractiveDeps,
  InteractiveInput,
  InteractiveSettings,
  InteractiveState,
} from './interactiveSettings.js';
export { refuseEarly, viaBrowser } from './signInPath.js';

/** Logs the docs/errors.md#errors-sign-in line of a failed redirect or exchange. */
function logFailure(logger: Logger, error: BridgeError, redirect: RedirectResult): void {
  if (error.code === 'sign_in_denied')
    logger.log(SCOPE, 'warn', 'The authorization server refused the access.');
  else if (error.code === 'sign_in_error') {
    logger.log(
      SCOPE,
      'warn',
      `The authorization server sent an error for the sign-in. The error code is ${safeCode(redirect.error)}.`,
    );
  } else logger.log(SCOPE, 'warn', `the sign-in failed: ${error.detail ?? error.code}`);
}

/** Runs one interactive sign-in; resolves with the token response and the request it answers. */
export async function signInInteractively(
  settings: InteractiveSettings,
  deps: InteractiveDeps,
  state: InteractiveState,
  input: InteractiveInput,
): Promise<TokenResponse> {
  const early = refuseEarly(settings, deps, state);
  if (early !== undefined) throw early;
  // A holder that lost the lock registers no client and starts no receiver (and see below).
  await input.confirm?.();
  const receiver: Receiver = await deps.startReceiver({ port: settings.redirectPort, logger: deps.logger });
  const attempt = new AbortController();
  const onStop = (): void => {
    const reason: unknown = input.signal.reason;
    // A lost lock has its own line (lockHeld.ts); the work under it just stops.
    if (!(reason instanceof LockLostError))
      deps.logger.log(SCOPE, 'warn', 'The request stopped before the sign-in completed.');
    attempt.abort(
      isBridgeError(reason) || reason instanceof LockLostError
        ? reason
        : new BridgeError('sign_in_failed', { detail: 'the request stopped before the sign-in completed' }),
    );
  };
  let timer: NodeJS.Timeout | undefined;
  let accepted: string | undefined;
  // A sign-in in the browser after `initialized` whose line was written: its failure starts the
  // cooldown as a failed client sign-in does, or each request would open a new browser tab.
  let laterBrowser = false;
  let refused = false;
  try {
    const config = await input.prepare(receiver.redirectUri);
    const request: AuthorizationRequest = await authorizationRequest(config, {
      redirectUri: receiver.redirectUri,
      resource: input.resource,
      scope: input.scope,
      ...(input.nonce === true ? { nonce: true } : {}),
    });
    const check = checkAuthorizationUrl(request.url, receiver.redirectUri, input.mcpUrl);
    if (!check.ok) {
      deps.logger.log(SCOPE, 'err', check.log);
      deps.logger.log(
        SCOPE,
        'err',
        'The authorization server sent an authorization URL that is not valid. The bridge did not open it.',
      );
      throw new BridgeError('sign_in_invalid_url');
    }
    // A lost hold writes no sign-in line and opens no browser: the new holder signs in
    // (docs/sign-in.md#sign-in-lock).
    await input.confirm?.();
    if (input.signal.aborted) onStop();
    else input.signal.addEventListener('abort', onStop, { once: true });
    // `prepare` (a client registration) does not watch the signal: a sign-in stopped meanwhile
    // writes no sign-in line and opens no browser (docs/sign-in.md#sign-in-sandbox).
    if (attempt.signal.aborted) throw attempt.signal.reason;
    const browser = viaBrowser(settings, deps.consent);
    const withStartUrl = browser && !settings.noBrowser;
    const armed = receiver.expect({
      state: request.state,
      authorizationUrl: request.url,
      withStartUrl,
      signal: attempt.signal,
    });
    deps.writeSignInLine(request.url);
    laterBrowser = browser && deps.consent.phase() === 'ready';
    const limit = settings.signInTimeoutMs;
    let asking = !browser;
    timer = setTimeout(() => {
      if (asking) {
        deps.logger.log(
          SCOPE,
          'warn',
          `the client did not answer the URL elicitation of the sign-in in ${formatDuration(limit)}`,
        );
      }
      deps.logger.log(SCOPE, 'err', `The sign-in did not complete in ${formatDuration(limit)}.`);
      attempt.abort(new BridgeError('sign_in_timeout', { detail: formatDuration(limit) }));
    }, limit);
    accepted = await show(
      settings,
      deps,
      state,
      { authorizationUrl: request.url, startUrl: armed.startUrl },
      attempt.signal,
    );
    asking = false;
    const redirect = await raced(armed.result, attempt.signal);
    let response: TokenResponse;
    try {
      const exchange =
        input.exchange ?? (() => exchangeCode(config, { redirect, request, resource: input.resource }));
      response = await raced(exchange(config, redirect, request), attempt.signal);
    } catch (error) {
      const mapped = isBridgeError(error) ? error : codeError(error);
      const code = refusedClientCode(error);
      refused = code !== undefined && !attempt.signal.aborted && input.clientRefused?.(code) === true;
      if (!attempt.signal.aborted && !refused) logFailure(deps.logger, mapped, redirect);
      throw mapped;
    }
    // The user's part is done: the watch of the start URL is not bounded by --sign-in-timeout.
    clearTimeout(timer);
    // A second request of the start URL after the redirect discards the tokens (SECURITY.md,
    // requirement 14): they may be of the account of whoever followed the start URL first.
    await raced(armed.confirm(), attempt.signal);
    return response;
  } catch (error) {
    // docs/security.md#security-4 (cooldown "after a declined/failed client sign-in"), which docs/sign-in.md#sign-in-consent words
    // for a decline only: a question the user accepted whose sign-in then failed (an error of the
    // redirect, a refused exchange, the time limit) starts the cooldown too, or each request that
    // needs the sign-in would show the user a new question at once. Not when the request itself
    // stopped (a client cancel, docs/sign-in.md#sign-in-consent: no cooldown), and a decline has already started it in show().
    // A client refused for a sign-in the caller starts again starts none either.
    if ((accepted !== undefined || laterBrowser) && !input.signal.aborted && !refused) {
      state.cooldownUntil = deps.now() + DECLINE_COOLDOWN_MS;
    }
    throw error;
  } finally {
    clearTimeout(timer);
    input.signal.removeEventListener('abort', onStop);
    // docs/input-rounds.md#input-elicitation-complete: exactly once per accepted URL, also on error or cancel.
    if (accepted !== undefined) deps.consent.complete(accepted);
    attempt.abort(new BridgeError('sign_in_failed', { detail: 'the sign-in ended' }));
    await receiver.close();
  }
}
