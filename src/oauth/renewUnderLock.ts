/**
 * Steps 2–4 of upstreamAuth.ts, under one hold of the sign-in lock (docs/sign-in.md#sign-in-lock,
 * docs/sign-in.md#sign-in-refresh, docs/sign-in.md#sign-in-trigger): a usable token another
 * holder stored meanwhile is taken as it is; else, within the sign-in budget, discovery, then a
 * silent refresh whose refresh token is sent at most once, else a new interactive sign-in.
 */
import type { ConsentPort } from '../ports/signIn.js';
import type { SignInTelemetry } from '../ports/telemetry.js';
import { BridgeError } from '../protocol/bridgeError.js';
import { grantRow } from './grants.js';
import type { RefreshMark } from './recordWrites.js';
import { refreshUnanswered } from './refreshMark.js';
import type { ChallengeInput, RenewalContext } from './renewal.js';
import { discover, silentRefresh } from './renewal.js';
import { covers } from './scopes.js';
import { stepInfo, traced } from './signInSteps.js';
import { MAX_SIGN_INS_PER_WINDOW, SIGN_IN_WINDOW_MS, type SignInBudget } from './signInBudget.js';
import { LockLostError } from './store/hold.js';
import type { LockHold, TokenRecord, TokenStore } from './store/types.js';
import { usableAt } from './tokens.js';

const SCOPE = 'oauth';

export interface RenewDeps {
  readonly store: TokenStore;
  readonly budget: SignInBudget;
  /** The context of the renewal under `held` (renewal.ts). */
  /** The context of one renewal; `consent` is the connection of the request (ChallengeInput.consent). */
  readonly contextOf: (held: LockHold, consent: ConsentPort | undefined) => RenewalContext;
  /** Makes `record` the one in use. */
  readonly adopt: (record: TokenRecord) => void;
  readonly markRefresh: (stored: TokenRecord & { readonly refreshToken: string }) => Promise<RefreshMark>;
  /** The telemetry of the sign-in steps as it is now (UpstreamAuth.observe). */
  readonly telemetry: () => SignInTelemetry;
}

/** The renewal of one challenge, to run under one hold of the lock (SignInLock.hold). */
export function renewUnderLock(
  deps: RenewDeps,
): (input: ChallengeInput) => (held: LockHold) => Promise<void> {
  const { store, budget, contextOf, adopt, markRefresh, telemetry } = deps;
  const renew = async (input: ChallengeInput, held: LockHold, again = true): Promise<void> => {
    if (input.signal.aborted) throw input.signal.reason as Error;
    const ctx = contextOf(held, input.consent);
    const { logger, key, now } = ctx;
    const stored = await store.read(key);
    const stepUp = input.status === 403;
    if (
      stored !== undefined &&
      stored.accessToken !== input.refused &&
      usableAt(stored, now()) &&
      (!stepUp || covers(stored.scope, input.bearer.scope))
    ) {
      adopt(stored);
      return;
    }
    // A refresh token is sent at most once: one marked as sent without an answer is not sent again.
    const unanswered = !stepUp && stored !== undefined && refreshUnanswered(stored);
    if (unanswered) {
      logger.log(
        SCOPE,
        'warn',
        'a refresh of the stored sign-in got no answer (a bridge stopped during it): its refresh token is not sent again, a new sign-in follows',
      );
    }
    const canRefresh = !stepUp && !unanswered && stored?.refreshToken !== undefined;
    const grant = grantRow(ctx.config.grant);
    // docs/sign-in.md#sign-in-sandbox and docs/sign-in.md#sign-in-consent: what fails at once fails
    // before any request (each grant's own rule: grants.ts).
    if (!canRefresh) {
      const early = await grant.refuseEarly(ctx);
      if (early !== undefined) throw early;
    }
    if (!budget.take()) {
      logger.log(
        SCOPE,
        'warn',
        `the upstream server asked for a sign-in more than ${MAX_SIGN_INS_PER_WINDOW} times in ${SIGN_IN_WINDOW_MS / 1000} s: the bridge sends no sign-in request for it now`,
      );
      throw new BridgeError('sign_in_throttled', {
        detail: `more than ${MAX_SIGN_INS_PER_WINDOW} sign-ins in ${SIGN_IN_WINDOW_MS / 1000} s`,
      });
    }
    const found = await discover(ctx, input.bearer, AbortSignal.any([input.signal, held.signal]));
    const refreshToken = stored?.refreshToken;
    if (
      canRefresh &&
      stored !== undefined &&
      refreshToken !== undefined &&
      stored.issuer === found.as.issuer &&
      stored.resource === found.resource
    ) {
      // A refresh token is sent at most once (docs/sign-in.md#sign-in-refresh): spend it only while
      // the lock is still ours, and only if no other holder renewed (or began to renew) the record
      // since it was read (discovery took a while); then mark it as sent before it is
      // (refreshMark.ts).
      await held.confirm();
      const latest = await store.read(key);
      const mark =
        latest?.savedAt !== stored.savedAt ||
        latest.refreshToken !== refreshToken ||
        latest.refreshInFlight !== stored.refreshInFlight
          ? 'changed'
          : await markRefresh({ ...stored, refreshToken });
      if (mark === 'changed') {
        // Judged anew from the top; a record that changes again under a confirmed hold means a
        // writer outside the lock: spend nothing.
        if (again) return renew(input, held, false);
        throw new LockLostError();
      }
      // docs/observability.md#observability-sign-in: a span per refresh and per sign-in.
      if (
        mark === 'marked' &&
        (await traced(
          telemetry().refreshStarted(stepInfo('refresh_token', found.as.issuer, input.trace)),
          () => silentRefresh(ctx, stored, found),
          (refreshed) => (refreshed ? 'ok' : 'refused'),
        ))
      )
        return;
    }
    // `--grant` names the span's grant as OAuth spells grant types (authorization_code).
    await traced(
      telemetry().signInStarted(
        stepInfo(
          (ctx.config.grant ?? 'authorization-code').replaceAll('-', '_'),
          found.as.issuer,
          input.trace,
        ),
      ),
      () => grant.obtain(ctx, input, found, stored),
      () => 'ok',
    );
  };

  // A hold lost on the way is a LockLostError, whatever failed.
  return (input: ChallengeInput) => (held: LockHold) =>
    renew(input, held).catch((error: unknown) => {
      throw held.signal.aborted ? new LockLostError() : error;
    });
}
