/**
 * The sign-in of an HTTP upstream (docs/sign-in.md#sign-in-trigger, docs/sign-in.md#sign-in-refresh,
 * docs/sign-in.md#sign-in-lock). `header()` gives the current token; `challenge()` takes a
 * 401/403 and resolves once a retry may go:
 * 1. 403 without `insufficient_scope`, a second step-up of the same request, or a step-up for
 *    scopes already granted: `access_refused` at once (no loop, docs/sign-in.md#sign-in-scopes).
 * 2. Under the sign-in lock (one holder across processes), the record is read again: a usable
 *    token that another holder stored meanwhile is taken as it is (no request, no browser).
 * 3. Discovery (resource metadata, then server metadata), at most `MAX_SIGN_INS_PER_WINDOW`
 *    times in `SIGN_IN_WINDOW_MS` (signInBudget.ts): a server that answers every request with 401
 *    makes the bridge send no more sign-in requests past that, and the request fails at once with
 *    `sign_in_throttled` (SECURITY.md). A stored refresh token of the same issuer and resource is
 *    used silently (401 only); a refused refresh falls through. Right before the refresh token is
 *    spent, the hold of the lock is confirmed and the record read again: a rotating refresh token
 *    is never spent twice, even by a process that stalled past the lock's stale time while another
 *    took the lock over. A hold found lost aborts the refresh and the write, and the whole step
 *    runs once more under a new hold, which then finds the record the other process stored. A
 *    refresh token is sent at most once: the record is marked right before the refresh
 *    (refreshMark.ts, recordWrites.ts), and a record read with that mark (its answer never came)
 *    is not refreshed: a new sign-in follows.
 * 4. An interactive sign-in (renewal.ts, interactive.ts); a record of another issuer is never used
 *    for it (migration: a new client at the new server, docs/sign-in.md#sign-in-registration).
 * Steps 2-4 run in renewUnderLock.ts. Each new token is written to the store, which keeps a newer
 * record it finds (the record it returns is the one used).
 */
import { errorName } from '../ports/causeOf.js';
import { Subject } from 'rxjs';
import { BridgeError, isBridgeError } from '../protocol/bridgeError.js';
import type { openBrowser } from './browser.js';
import { bearerChallenge } from './challenge.js';
import { asksDpop, asksNonce, dpopSession, resourceProof, validNonce } from './dpop/index.js';
import type { InteractiveDeps, InteractiveSettings, InteractiveState } from './interactive.js';
import type { ConsentPort, UpstreamAuth } from '../ports/signIn.js';
import { NO_SIGN_IN_TELEMETRY } from '../ports/telemetry.js';
import type { EndHandle, SignInTelemetry } from '../ports/telemetry.js';
import type { SignInConfig, SignInDeps } from './signInConfig.js';
import { startReceiver as defaultStartReceiver } from './receiver.js';
import { recordWrites } from './recordWrites.js';
import type { ChallengeInput, RenewalContext } from './renewal.js';
import { renewUnderLock } from './renewUnderLock.js';
import { NO_METADATA_DOCUMENT } from './registration.js';
import { covers } from './scopes.js';
import { signInBudget } from './signInBudget.js';
import { stepErrorType } from './signInSteps.js';
import { LockLostError } from './store/hold.js';
import { loopbackRedirectUri, storageIdentity } from './store/identity.js';
import type { LockHold, RecordKey, TokenRecord } from './store/types.js';

export { MAX_SIGN_INS_PER_WINDOW, SIGN_IN_WINDOW_MS } from './signInBudget.js';

const SCOPE = 'oauth';

/** B's opener, loaded when a browser is first needed (it brings child_process along). */
const defaultOpenBrowser: typeof openBrowser = async (...args) =>
  (await import('./browser.js')).openBrowser(...args);

const refusedAccess = (detail: string): BridgeError => new BridgeError('access_refused', { detail });

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
      ...(config.grant === undefined || config.grant === 'authorization-code' ? {} : { grant: config.grant }),
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
  const dpop = dpopSession(config.dpop !== false);
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

  const { save, markRefresh } = recordWrites(store, logger, adopt);

  // docs/sign-in.md#sign-in-consent: the sign-in of a request asks that request's client, never
  // the connection bound last (docs/serve.md#serve-routing).
  const contextOf = (held: LockHold, consent: ConsentPort | undefined): RenewalContext => ({
    config,
    fetch: deps.fetch,
    logger,
    key,
    now,
    settings,
    interactiveDeps: consent === undefined ? interactiveDeps : { ...interactiveDeps, consent },
    state,
    current: () => current,
    held,
    save: (record) => save(record, held),
    refusedDocuments,
    dpop,
    store,
    lock,
  });

  // docs/observability.md#observability-sign-in: none until observe() gives one.
  let telemetry: SignInTelemetry = NO_SIGN_IN_TELEMETRY;
  const renewHeld = renewUnderLock({
    store,
    budget,
    contextOf,
    adopt,
    markRefresh,
    telemetry: () => telemetry,
  });

  const challenge: UpstreamAuth['challenge'] = async (given) => {
    const { status, wwwAuthenticate, signal } = given;
    const refused =
      'authorization' in given ? given.authorization?.replace(/^(?:Bearer|DPoP) /, '') : current?.accessToken;
    if (dpop.enabled && asksDpop(wwwAuthenticate)) dpop.resourceAsked = true;
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
    const input: ChallengeInput = {
      status,
      bearer,
      signal,
      refused,
      consent: given.consent,
      trace: given.trace,
    };
    // A span for each wait for the lock: behind this process's other sign-ins, then the lock's own.
    const attempt = (wait: EndHandle): Promise<void> => {
      let waiting = true;
      return lock
        .hold(
          key,
          (held) => {
            waiting = false;
            wait.end();
            return renewHeld(input)(held);
          },
          { signal },
        )
        .catch((error: unknown) => {
          if (waiting) wait.end(stepErrorType(error));
          throw error;
        });
    };
    const firstWait = telemetry.lockWaitStarted(given.trace);
    // After a lost hold, once more under a new hold (docs/sign-in.md#sign-in-lock); it reads the
    // store first, so a token another process stored meanwhile is taken as it is.
    const run = queue.then(() =>
      attempt(firstWait).catch((error: unknown) => {
        if (!(error instanceof LockLostError)) throw error;
        logger.log(
          SCOPE,
          'warn',
          'another bridge process took the sign-in lock over: the bridge reads the stored sign-in again',
        );
        return attempt(telemetry.lockWaitStarted(given.trace));
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
      logger.log(SCOPE, 'err', `the sign-in failed inside the bridge (${errorName(error)})`);
      throw new BridgeError('sign_in_failed', { detail: 'the sign-in failed inside the bridge' });
    }
  };

  // docs/sign-in.md#sign-in-dpop: a 401 `use_dpop_nonce` of the resource to a DPoP token gives
  // the nonce of the next proofs; the token stays, and no sign-in runs.
  const takeNonce: NonNullable<UpstreamAuth['takeNonce']> = (given) => {
    if (current?.tokenType !== 'DPoP' || !asksNonce(given.wwwAuthenticate)) return 'none';
    const nonce = validNonce(given.dpopNonce);
    if (nonce === undefined || nonce === dpop.resourceNonce) return 'again';
    dpop.resourceNonce = nonce;
    return 'new';
  };

  return {
    takeNonce,
    header: () =>
      current === undefined
        ? undefined
        : `${current.tokenType === 'DPoP' && dpop.enabled ? 'DPoP' : 'Bearer'} ${current.accessToken}`,
    // Every request to the MCP server is a POST to its URL (httpUpstream.ts).
    proof: () => resourceProof(current, dpop, { method: 'POST', url: config.url, now: now() }),
    challenge,
    signedIn$: signedIn.asObservable(),
    load: () => loaded,
    observe: (given) => {
      telemetry = given;
    },
  };
}
