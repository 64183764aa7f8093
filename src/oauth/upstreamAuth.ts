/**
 * The sign-in of an HTTP upstream (docs/sign-in.md#sign-in-trigger, docs/sign-in.md#sign-in-refresh,
 * docs/sign-in.md#sign-in-lock). `header()` gives the current token; `challenge()` takes a
 * 401/403 and resolves once a retry may go:
 * 1. 403 without `insufficient_scope`, a second step-up of the same request, or a step-up for
 *    scopes already granted: `access_refused` at once (no loop, docs/sign-in.md#sign-in-scopes).
 * 2. Under the sign-in lock (one holder across processes), the record is read again: a usable
 *    token that another holder stored meanwhile is taken as it is (no request, no browser).
 * 3. Discovery (resource metadata, then server metadata), at most {@link MAX_SIGN_INS_PER_WINDOW}
 *    times in {@link SIGN_IN_WINDOW_MS}: a server that answers every request with 401 makes
 *    the bridge send no more sign-in requests past that, and the request fails at once with
 *    `sign_in_throttled` (SECURITY.md). A stored refresh token of the same
 *    issuer and resource is used silently (401 only); a refused refresh falls through. Right
 *    before the refresh token is spent, the hold of the lock is confirmed and the record read
 *    again: a rotating refresh token is never spent twice, even by a process that stalled past
 *    the lock's stale time while another took the lock over. A hold
 *    found lost aborts the refresh and the write, and the whole step runs once more under a new
 *    hold, which then finds the record the other process stored. A refresh token is sent at most
 *    once: the record is marked right before the refresh (refreshMark.ts), and a record read with
 *    that mark (its answer never came) is not refreshed: a new sign-in follows.
 * 4. An interactive sign-in (renewal.ts, interactive.ts); a record of another issuer is never used for it
 *    (migration: a new client at the new server, docs/sign-in.md#sign-in-registration).
 * Each new token is written to the store, which keeps a newer record it finds (the record it
 * returns is the one used).
 */
import { Subject } from 'rxjs';
import { BridgeError, isBridgeError } from '../errors.js';
import type { openBrowser } from './browser.js';
import { bearerChallenge } from './challenge.js';
import type { InteractiveDeps, InteractiveSettings, InteractiveState } from './interactive.js';
import { refuseEarly } from './interactive.js';
import type { SignInConfig, SignInDeps, UpstreamAuth } from './ports.js';
import { startReceiver as defaultStartReceiver } from './receiver.js';
import type { ChallengeInput, RenewalContext } from './renewal.js';
import { discover, signInAnew, silentRefresh } from './renewal.js';
import { NO_METADATA_DOCUMENT } from './registration.js';
import { covers } from './scopes.js';
import { markedForRefresh, refreshUnanswered } from './refreshMark.js';
import { LockLostError } from './store/hold.js';
import { loopbackRedirectUri, storageIdentity } from './store/identity.js';
import type { LockHold, RecordKey, TokenRecord } from './store/types.js';
import { usableAt } from './tokens.js';

export type { ConsentPort, SignInConfig, SignInDeps, UpstreamAuth } from './ports.js';

const SCOPE = 'oauth';

/** B's opener, loaded when a browser is first needed (it brings child_process along). */
const defaultOpenBrowser: typeof openBrowser = async (...args) =>
  (await import('./browser.js')).openBrowser(...args);

const refusedAccess = (detail: string): BridgeError => new BridgeError('access_refused', { detail });

/** A sign-in (discovery, then a refresh or a new sign-in) starts at most this many times… */
export const MAX_SIGN_INS_PER_WINDOW = 5;
/** …in this sliding window. */
export const SIGN_IN_WINDOW_MS = 60_000;

/**
 * The starts of the sign-in within the window: `take()` is false, and counts nothing, once
 * {@link MAX_SIGN_INS_PER_WINDOW} starts are less than {@link SIGN_IN_WINDOW_MS} old.
 */
function signInBudget(now: () => number): { take(): boolean } {
  const starts: number[] = [];
  return {
    take() {
      const at = now();
      while (starts.length > 0 && at - (starts[0] ?? at) >= SIGN_IN_WINDOW_MS) starts.shift();
      if (starts.length >= MAX_SIGN_INS_PER_WINDOW) return false;
      starts.push(at);
      return true;
    },
  };
}

export function createUpstreamAuth(
  config: SignInConfig,
  deps: SignInDeps,
): UpstreamAuth & { load(): Promise<void> } {
  const { logger, store, lock } = deps;
  const now = deps.now ?? Date.now;
  const key: RecordKey = {
    url: config.url,
    identity: storageIdentity({
      bridgeName: config.bridgeName,
      account: config.account,
      redirectUri: loopbackRedirectUri(config.redirectPort),
      ...(config.clientId === undefined ? {} : { clientId: config.clientId }),
      // `none` keeps the base identity: a stored sign-in stays usable, a new one registers.
      ...(config.clientMetadataUrl === undefined || config.clientMetadataUrl === NO_METADATA_DOCUMENT
        ? {}
        : { metadataUrl: config.clientMetadataUrl }),
    }),
  };
  const writeLine =
    deps.writeSignInLine ??
    ((line: string): void => {
      process.stderr.write(`${line}\n`);
    });
  const interactiveDeps: InteractiveDeps = {
    logger,
    env: deps.env,
    consent: deps.consent,
    now,
    startReceiver: deps.startReceiver ?? defaultStartReceiver,
    openBrowser: deps.openBrowser ?? defaultOpenBrowser,
    writeSignInLine: (url) => writeLine(`${config.bridgeName}: sign in at ${url}`),
  };
  const settings: InteractiveSettings = config;
  const state: InteractiveState = { cooldownUntil: 0, elicitations: 0 };
  const signedIn = new Subject<void>();
  const stepUps = new WeakSet<AbortSignal>();
  const budget = signInBudget(now);
  const refusedDocuments = new Set<string>();
  let current: TokenRecord | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const adopt = (record: TokenRecord): void => {
    const changed = record.accessToken !== current?.accessToken;
    current = record;
    if (changed) signedIn.next();
  };

  const loaded: Promise<void> = store.read(key).then(
    (record) => {
      if (record !== undefined && current === undefined) current = record;
    },
    () =>
      logger.log(
        SCOPE,
        'warn',
        'the token store did not give the stored sign-in; a sign-in follows when needed',
      ),
  );

  /**
   * Stores the record; the store keeps a newer one it holds and returns what it keeps. A store
   * that fails loses nothing of this process: the token is used until the end of the process.
   */
  const save = async (record: TokenRecord, held: LockHold): Promise<void> => {
    // A lost hold writes nothing; the record in the store is the new holder's (docs/sign-in.md#sign-in-lock).
    await held.confirm();
    let kept = record;
    try {
      kept = await store.write(record);
    } catch {
      logger.log(
        SCOPE,
        'warn',
        'the token store did not keep the sign-in; it lasts until the end of the process',
      );
    }
    adopt(kept);
  };

  /**
   * Stores `stored` marked as in refresh (refreshMark.ts) right before its refresh token is sent:
   * `marked` when the store kept the mark, `changed` when it kept a newer record instead, `failed`
   * when the store failed (the token is not sent then: a mark that is not kept cannot stop the next
   * start from sending it again).
   */
  const markRefresh = async (
    stored: TokenRecord & { readonly refreshToken: string },
  ): Promise<'marked' | 'changed' | 'failed'> => {
    const marked = markedForRefresh(stored);
    let kept: TokenRecord;
    try {
      kept = await store.write(marked);
    } catch {
      logger.log(
        SCOPE,
        'warn',
        'the token store did not keep the refresh about to be sent: the bridge does not refresh, a new sign-in follows',
      );
      return 'failed';
    }
    return kept.savedAt === marked.savedAt &&
      kept.refreshToken === marked.refreshToken &&
      kept.refreshInFlight === marked.refreshInFlight
      ? 'marked'
      : 'changed';
  };

  const contextOf = (held: LockHold): RenewalContext => ({
    config,
    fetch: deps.fetch,
    logger,
    key,
    now,
    settings,
    interactiveDeps,
    state,
    current: () => current,
    held,
    save: (record) => save(record, held),
    refusedDocuments,
  });

  /** Steps 2–4 of the file comment; runs under the lock. */
  const renew = async (input: ChallengeInput, held: LockHold, again = true): Promise<void> => {
    if (input.signal.aborted) throw input.signal.reason as Error;
    const ctx = contextOf(held);
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
    // docs/sign-in.md#sign-in-sandbox and docs/sign-in.md#sign-in-consent: what fails at once fails before any request.
    if (!canRefresh) {
      const early = refuseEarly(settings, interactiveDeps, state);
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
      if (mark === 'marked' && (await silentRefresh(ctx, stored, found))) return;
    }
    await signInAnew(ctx, input, found, stored);
  };

  /** renew() under one hold of the lock; a hold lost on the way is a LockLostError, whatever failed. */
  const renewHeld = (input: ChallengeInput) => (held: LockHold) =>
    renew(input, held).catch((error: unknown) => {
      throw held.signal.aborted ? new LockLostError() : error;
    });

  const challenge: UpstreamAuth['challenge'] = async (given) => {
    const { status, wwwAuthenticate, signal } = given;
    const refused =
      'authorization' in given ? given.authorization?.replace(/^Bearer /, '') : current?.accessToken;
    const bearer = bearerChallenge(wwwAuthenticate);
    if (status === 403) {
      if (bearer.error !== 'insufficient_scope') throw refusedAccess('HTTP status 403');
      // docs/sign-in.md#sign-in-scopes: one step-up per request; scopes already held cannot be stepped up.
      if (stepUps.has(signal)) throw refusedAccess('HTTP status 403 after a step-up');
      if (current !== undefined && bearer.scope !== undefined && covers(current.scope, bearer.scope)) {
        throw refusedAccess('HTTP status 403 for scopes the sign-in already has');
      }
      stepUps.add(signal);
    }
    await loaded;
    const input: ChallengeInput = { status, bearer, signal, refused };
    const attempt = (): Promise<void> => lock.hold(key, renewHeld(input), { signal });
    // After a lost hold, once more under a new hold (docs/sign-in.md#sign-in-lock); it reads the store first, so a
    // token another process stored meanwhile is taken as it is.
    const run = queue.then(() =>
      attempt().catch((error: unknown) => {
        if (!(error instanceof LockLostError)) throw error;
        logger.log(
          SCOPE,
          'warn',
          'another bridge process took the sign-in lock over: the bridge reads the stored sign-in again',
        );
        return attempt();
      }),
    );
    queue = run.catch(() => undefined);
    try {
      await run;
    } catch (error) {
      if (isBridgeError(error)) throw error;
      if (error instanceof LockLostError) {
        throw new BridgeError('sign_in_failed', {
          detail: 'another bridge process took the sign-in lock over twice',
        });
      }
      if (signal.aborted) {
        throw new BridgeError('sign_in_failed', {
          detail: 'the request stopped before the sign-in completed',
        });
      }
      logger.log(
        SCOPE,
        'err',
        `the sign-in failed inside the bridge (${error instanceof Error ? error.name : 'unknown'})`,
      );
      throw new BridgeError('sign_in_failed', { detail: 'the sign-in failed inside the bridge' });
    }
  };

  return {
    header: () => (current === undefined ? undefined : `Bearer ${current.accessToken}`),
    challenge,
    signedIn$: signedIn.asObservable(),
    load: () => loaded,
  };
}
