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
import type * as client from 'openid-client';
import type { Logger } from '../bridge/log.js';
import { BridgeError, isBridgeError } from '../errors.js';
import { formatDuration } from '../protocol/errors.js';
import { checkAuthorizationUrl } from './authorizationUrl.js';
import type { openBrowser } from './browser.js';
import { authorizationRequest, codeError, exchangeCode, refusedClientCode, safeCode } from './flow.js';
import type { AuthorizationRequest } from './flow.js';
import type { Receiver, RedirectResult, startReceiver } from './receiver.js';
import type { TokenResponse } from './tokens.js';
import type { ConsentPort } from './ports.js';
import { LockLostError } from './store/hold.js';

const SCOPE = 'oauth';
/**
 * After a declined or dismissed URL elicitation, an accepted one whose sign-in then failed, or a
 * failed sign-in in the browser after `initialized`, no new sign-in through the client for this
 * long (docs/sign-in.md#sign-in-consent, docs/security.md#security-4).
 */
export const DECLINE_COOLDOWN_MS = 60_000;
export const CONSENT_MESSAGE =
  'The upstream server needs a new sign-in. Open the URL and sign in at the authorization server.';

export interface InteractiveDeps {
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
  readonly consent: ConsentPort;
  readonly now: () => number;
  readonly startReceiver: typeof startReceiver;
  readonly openBrowser: typeof openBrowser;
  readonly writeSignInLine: (authorizationUrl: string) => void;
}

export interface InteractiveSettings {
  readonly redirectPort: number;
  readonly noBrowser: boolean;
  readonly signInTimeoutMs: number;
  readonly sandbox: boolean;
  readonly secretVariables: readonly string[];
  /**
   * After `notifications/initialized`, a client without URL elicitation gets the browser (true:
   * the `mcp-bridge` profile) or `no_consent` (false or absent: the reference rule).
   */
  readonly browserWithoutUrlElicitation?: boolean;
}

/** State that outlives one sign-in: the cooldown of §6.7 and §10 item 4, and the elicitation counter. */
export interface InteractiveState {
  cooldownUntil: number;
  elicitations: number;
}

export interface InteractiveInput {
  /** Makes the openid-client configuration once the redirect URI is known (it may register a client). */
  readonly prepare: (redirectUri: string) => Promise<client.Configuration>;
  /** The MCP URL: a loopback http authorization URL only for a loopback one. */
  readonly mcpUrl: string;
  readonly resource: string;
  readonly scope: string | undefined;
  /** Ends the sign-in: the request stopped, or the sign-in lock was lost (a LockLostError). */
  readonly signal: AbortSignal;
  /**
   * Resolves while the sign-in lock is still this holder's (LockHold.confirm); awaited right
   * before the receiver starts and again before the sign-in line is written and the browser
   * opens, so that a holder that stalled and lost the lock shows no second sign-in. Absent: a
   * lock that cannot be lost.
   */
  readonly confirm?: () => Promise<void>;
  /**
   * Asked when the authorization server refuses the client (`invalid_client` or
   * `unauthorized_client` in the redirect or from the token endpoint): true when the caller will
   * start the sign-in again with another client. The sign-in then fails without its failure line
   * and without a cooldown (the caller logs its own line).
   */
  readonly clientRefused?: (code: 'invalid_client' | 'unauthorized_client') => boolean;
}

/** Whether this sign-in shows its URL through the browser (else: a URL elicitation of the client). */
export function viaBrowser(settings: InteractiveSettings, consent: ConsentPort): boolean {
  return (
    consent.phase() !== 'ready' ||
    (settings.browserWithoutUrlElicitation === true && !consent.clientSupportsUrl())
  );
}

/** Rejects with the abort reason as soon as `signal` aborts. */
function raced<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
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

/** Logs the §6.10 line of a failed redirect or exchange. */
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

/**
 * Shows the authorization URL: the browser before `initialized` (and after it, for a client
 * without URL elicitation where the profile says so), the client's question after.
 */
async function show(
  settings: InteractiveSettings,
  deps: InteractiveDeps,
  state: InteractiveState,
  url: { readonly authorizationUrl: string; readonly startUrl: string | undefined },
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
    message: CONSENT_MESSAGE,
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
    // A lost lock has its own line (lock.ts); the work under it just stops.
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
      response = await raced(
        exchangeCode(config, { redirect, request, resource: input.resource }),
        attempt.signal,
      );
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
