/**
 * The device authorization grant (RFC 8628) of `--grant device-code`, in place of the browser
 * sign-in of renewal.ts (docs/sign-in.md#sign-in-device-code): the same discovery, client
 * registration (a pre-registered `--client-id`, else dynamic registration for the device grant;
 * never the client ID metadata document, which names a redirect URI), scope, resource and DPoP;
 * then the device authorization request, the verification URL shown once (showTarget.ts), and
 * the token endpoint polled at the server's interval (poll.ts), all within `--sign-in-timeout`
 * (and the device code's own lifetime). The token is stored like any sign-in, with its grant.
 */
import { BridgeError, isBridgeError } from '../../protocol/bridgeError.js';
import { formatDuration } from '../../protocol/errors.js';
import { keyForSignIn, withDpop } from '../dpop/index.js';
import { registerClient } from '../dynamicRegistration.js';
import { configuration } from '../flow.js';
import { DECLINE_COOLDOWN_MS, SCOPE } from '../interactiveSettings.js';
import type { InteractiveDeps, InteractiveSettings, InteractiveState } from '../interactiveSettings.js';
import { chooseRegistration, NO_METADATA_DOCUMENT } from '../registration.js';
import { scopeToAsk } from '../renewal.js';
import type { ChallengeInput, Discovered, RenewalContext } from '../renewal.js';
import { refuseEarly } from '../signInPath.js';
import { LockLostError } from '../store/hold.js';
import type { ClientRegistration, TokenRecord } from '../store/types.js';
import { tokenRecord } from '../tokens.js';
import { nodeSleep, pollForTokens, type Sleep } from './poll.js';
import { askForTokens, DEVICE_CODE_GRANT, deviceEndpoint, requestDeviceGrant } from './requests.js';
import { showTarget } from './showTarget.js';

/** The grant name stored with the record (`status` shows it). */
export const DEVICE_GRANT_NAME = 'device-code';

/**
 * What fails at once for the device grant: the sandbox and the cooldown, as for the browser
 * sign-in; a client without URL elicitation is no refusal (the stderr line shows the URL).
 */
export const refuseDeviceEarly = (
  settings: InteractiveSettings,
  deps: InteractiveDeps,
  state: InteractiveState,
): BridgeError | undefined => refuseEarly({ ...settings, browserWithoutUrlElicitation: true }, deps, state);

/** The client of the device grant: `--client-id`, a stored device client of this issuer, or a new one. */
async function deviceClient(
  ctx: RenewalContext,
  found: Discovered,
  sameIssuer: TokenRecord | undefined,
): Promise<{ readonly registration: ClientRegistration; readonly secret?: string }> {
  let choice;
  try {
    choice = chooseRegistration({
      config: { ...ctx.config, clientMetadataUrl: NO_METADATA_DOCUMENT },
      as: found.as,
      // A dynamic client registered for the browser sign-in may not use the device grant.
      stored: sameIssuer?.grant === DEVICE_GRANT_NAME ? sameIssuer : undefined,
      logger: ctx.logger,
      redirectUri: 'none',
      documentRefused: true,
    });
  } catch (error) {
    if (isBridgeError(error) && error.code === 'registration_unavailable') {
      throw new BridgeError('registration_unavailable', {
        detail: 'none: the device grant uses no redirect URI',
      });
    }
    throw error;
  }
  if (choice.kind === 'ready') return choice;
  return registerClient(
    found.as,
    { clientName: ctx.config.clientName, grantTypes: [DEVICE_CODE_GRANT, 'refresh_token'] },
    ctx.fetch,
    ctx.config.url,
  );
}

/** Logs the line of a grant the server ended (docs/errors.md#errors-sign-in). */
function logEnd(ctx: RenewalContext, error: BridgeError): void {
  const { logger } = ctx;
  if (error.code === 'sign_in_denied')
    logger.log(SCOPE, 'warn', 'The authorization server refused the access.');
  else if (error.code === 'sign_in_timeout')
    logger.log(SCOPE, 'err', `The sign-in did not complete: ${error.detail ?? 'time limit'}.`);
  else logger.log(SCOPE, 'warn', `the sign-in failed: ${error.detail ?? error.code}`);
}

/** Runs the device grant and stores its token; `sleep` is the clock of the polling (tests). */
export async function signInWithDeviceCode(
  ctx: RenewalContext,
  input: ChallengeInput,
  found: Discovered,
  stored: TokenRecord | undefined,
  sleep: Sleep = nodeSleep,
): Promise<void> {
  const { config, settings, interactiveDeps: deps, state } = ctx;
  const sameIssuer = stored?.issuer === found.as.issuer ? stored : undefined;
  const scope = scopeToAsk(ctx, input, found, sameIssuer);
  // The clear error of a server without the grant comes before any registration.
  deviceEndpoint(found.as, config.url);
  await ctx.held.confirm();
  const made = await deviceClient(ctx, found, sameIssuer);
  const attempt = new AbortController();
  const onStop = (): void => {
    const reason: unknown = input.signal.aborted ? input.signal.reason : ctx.held.signal.reason;
    if (!(reason instanceof LockLostError))
      deps.logger.log(SCOPE, 'warn', 'The request stopped before the sign-in completed.');
    attempt.abort(
      isBridgeError(reason) || reason instanceof LockLostError
        ? reason
        : new BridgeError('sign_in_failed', { detail: 'the request stopped before the sign-in completed' }),
    );
  };
  const outer = AbortSignal.any([input.signal, ctx.held.signal]);
  if (outer.aborted) onStop();
  else outer.addEventListener('abort', onStop, { once: true });
  const dpopKey = keyForSignIn(ctx.dpop, found.as);
  const cfg = withDpop(
    configuration(found.as, made.registration, made.secret, ctx.fetch, config.url, attempt.signal),
    dpopKey,
    ctx.dpop,
    ctx.now,
  );
  let timer: NodeJS.Timeout | undefined;
  let accepted: string | undefined;
  try {
    const grant = await requestDeviceGrant(cfg, { resource: found.resource, scope, mcpUrl: config.url });
    await ctx.held.confirm();
    if (attempt.signal.aborted) throw attempt.signal.reason as Error;
    // The grant ends at the time limit or when the device code expires, whichever comes first.
    const limit = Math.min(settings.signInTimeoutMs, grant.expiresInMs);
    timer = setTimeout(() => {
      deps.logger.log(SCOPE, 'err', `The sign-in did not complete in ${formatDuration(limit)}.`);
      attempt.abort(new BridgeError('sign_in_timeout', { detail: formatDuration(limit) }));
    }, limit);
    accepted = await showTarget(settings, deps, state, grant.target, attempt.signal);
    let response;
    try {
      response = await pollForTokens({
        intervalMs: grant.intervalMs,
        ask: () => askForTokens(cfg, { deviceCode: grant.deviceCode, resource: found.resource }),
        sleep,
        signal: attempt.signal,
      });
    } catch (error) {
      if (!attempt.signal.aborted && isBridgeError(error)) logEnd(ctx, error);
      throw error;
    }
    clearTimeout(timer);
    await ctx.save(
      tokenRecord({
        key: ctx.key,
        issuer: found.as.issuer,
        resource: found.resource,
        client: made.registration,
        response,
        requestedScope: scope,
        dpopKey,
        grant: DEVICE_GRANT_NAME,
        now: Math.max(ctx.now(), (stored?.savedAt ?? 0) + 1),
      }),
    );
    ctx.logger.log(SCOPE, 'info', 'the sign-in completed');
  } catch (error) {
    // As a failed sign-in through the client (interactive.ts): no new question at once.
    if (accepted !== undefined && !input.signal.aborted)
      state.cooldownUntil = deps.now() + DECLINE_COOLDOWN_MS;
    throw error;
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onStop);
    if (accepted !== undefined) deps.consent.complete(accepted);
    attempt.abort(new BridgeError('sign_in_failed', { detail: 'the sign-in ended' }));
  }
}
