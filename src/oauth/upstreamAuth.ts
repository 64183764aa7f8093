/**
 * The sign-in of an HTTP upstream (issue #11, issue #12 deliverable 3; reference-behaviors.md
 * §6.4–6.13; protocol-mapping.md §8). `header()` gives the current token; `challenge()` takes a
 * 401/403 and resolves once a retry may go:
 * 1. 403 without `insufficient_scope`, a second step-up of the same request, or a step-up for
 *    scopes already granted: `access_refused` at once (no loop, §8.8).
 * 2. Under the sign-in lock (one holder across processes), the record is read again: a usable
 *    token that another holder stored meanwhile is taken as it is (no request, no browser).
 * 3. Discovery (resource metadata, then server metadata); a stored refresh token of the same
 *    issuer and resource is used silently (401 only); a refused refresh falls through.
 * 4. An interactive sign-in (interactive.ts); a record of another issuer is never used for it
 *    (migration: a new client at the new server, §8.10).
 * Each new token is written to the store, which keeps a newer record it finds (the record it
 * returns is the one used).
 */
import { Subject } from 'rxjs';
import type { ServerMetadata } from 'openid-client';
import { BridgeError, isBridgeError } from '../errors.js';
import type { openBrowser } from './browser.js';
import { bearerChallenge } from './challenge.js';
import type { BearerChallenge } from './challenge.js';
import { configuration, refresh, registerClient } from './flow.js';
import type { InteractiveDeps, InteractiveSettings, InteractiveState } from './interactive.js';
import { refuseEarly, signInInteractively } from './interactive.js';
import type { SignInConfig, SignInDeps, UpstreamAuth } from './ports.js';
import { startReceiver as defaultStartReceiver } from './receiver.js';
import { chooseRegistration } from './registration.js';
import { discoverResource } from './resourceMetadata.js';
import { covers, initialScope, stepUpScope } from './scopes.js';
import { discoverServer } from './serverMetadata.js';
import { loopbackRedirectUri, storageIdentity } from './store/identity.js';
import type { ClientRegistration, RecordKey, TokenRecord } from './store/types.js';
import { tokenRecord, usableAt } from './tokens.js';
import type { TokenResponse } from './tokens.js';

export type { ConsentPort, SignInConfig, SignInDeps, UpstreamAuth } from './ports.js';

const SCOPE = 'oauth';

interface Discovered {
  readonly resource: string;
  readonly scopesSupported: readonly string[] | undefined;
  readonly as: ServerMetadata;
  readonly metadataUrl: string;
}

interface ChallengeInput {
  readonly status: 401 | 403;
  readonly bearer: BearerChallenge;
  readonly signal: AbortSignal;
  /** The token that was current when the refusal arrived (it is the refused one). */
  readonly refused: string | undefined;
}

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
      ...(config.clientMetadataUrl === undefined ? {} : { metadataUrl: config.clientMetadataUrl }),
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

  const discover = async (bearer: BearerChallenge, signal: AbortSignal): Promise<Discovered> => {
    const resource = await discoverResource({
      fetch: deps.fetch,
      mcpUrl: config.url,
      ...(bearer.resourceMetadata === undefined ? {} : { headerUrl: bearer.resourceMetadata }),
      signal,
    });
    const found = await discoverServer({ fetch: deps.fetch, issuer: resource.issuer, signal });
    return {
      resource: resource.resource,
      scopesSupported: resource.scopesSupported,
      as: found.metadata,
      metadataUrl: found.metadataUrl,
    };
  };

  /**
   * Stores the record; the store keeps a newer one it holds and returns what it keeps. A store
   * that fails loses nothing of this process: the token is used until the end of the process.
   */
  const save = async (record: TokenRecord): Promise<void> => {
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

  /** The secret of a client: the dynamic client's own, or MCP_BRIDGE_CLIENT_SECRET for its issuer only. */
  const secretOf = (client: ClientRegistration, issuer: string): string | undefined =>
    client.source === 'dynamic'
      ? client.clientSecret
      : client.source === 'pre-registered' && config.clientIssuer === issuer
        ? config.clientSecret
        : undefined;

  const trySilentRefresh = async (stored: TokenRecord, found: Discovered): Promise<boolean> => {
    if (stored.refreshToken === undefined) return false;
    try {
      const cfg = configuration(
        found.as,
        stored.client,
        secretOf(stored.client, found.as.issuer),
        deps.fetch,
      );
      const response = await refresh(cfg, { refreshToken: stored.refreshToken, resource: stored.resource });
      await save(
        tokenRecord({
          key,
          issuer: stored.issuer,
          resource: stored.resource,
          client: stored.client,
          response,
          requestedScope: undefined,
          previous: stored,
          now: now(),
        }),
      );
      logger.log(SCOPE, 'info', 'the bridge refreshed the sign-in');
      return true;
    } catch (error) {
      const detail = isBridgeError(error) ? (error.detail ?? error.code) : 'the refresh failed';
      logger.log(
        SCOPE,
        'warn',
        `the authorization server refused the refresh (${detail}); a new sign-in follows`,
      );
      return false;
    }
  };

  const interactive = async (
    input: ChallengeInput,
    found: Discovered,
    stored: TokenRecord | undefined,
  ): Promise<void> => {
    const sameIssuer = stored?.issuer === found.as.issuer ? stored : undefined;
    if (stored !== undefined && sameIssuer === undefined) {
      logger.log(
        SCOPE,
        'info',
        'the upstream server names another authorization server than the one of the stored sign-in: the bridge signs in there anew',
      );
    }
    const scope =
      input.status === 403
        ? stepUpScope({
            granted: current?.scope ?? sameIssuer?.scope,
            challengeScope: input.bearer.scope,
            serverScopes: found.as.scopes_supported,
          })
        : initialScope({
            challengeScope: input.bearer.scope,
            resourceScopes: found.scopesSupported,
            serverScopes: found.as.scopes_supported,
          });
    let client: ClientRegistration | undefined;
    const prepare = async (redirectUri: string) => {
      const choice = chooseRegistration({ config, as: found.as, stored: sameIssuer, logger, redirectUri });
      const made =
        choice.kind === 'ready'
          ? choice
          : await registerClient(
              found.as,
              { metadataUrl: found.metadataUrl, redirectUri, clientName: config.clientName },
              deps.fetch,
            );
      client = made.registration;
      return configuration(found.as, made.registration, made.secret, deps.fetch);
    };
    const response: TokenResponse = await signInInteractively(settings, interactiveDeps, state, {
      prepare,
      resource: found.resource,
      scope,
      signal: input.signal,
    });
    if (client === undefined) throw new BridgeError('internal', { detail: 'the sign-in has no client' });
    await save(
      tokenRecord({
        key,
        issuer: found.as.issuer,
        resource: found.resource,
        client,
        response,
        requestedScope: scope,
        now: Math.max(now(), (stored?.savedAt ?? 0) + 1),
      }),
    );
    logger.log(SCOPE, 'info', 'the sign-in completed');
  };

  /** Steps 2–4 of the file comment; runs under the lock. */
  const renew = async (input: ChallengeInput): Promise<void> => {
    if (input.signal.aborted) throw input.signal.reason as Error;
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
    const canRefresh = !stepUp && stored?.refreshToken !== undefined;
    // §6.13 and §6.7: what fails at once fails before any request.
    if (!canRefresh) {
      const early = refuseEarly(settings, interactiveDeps, state);
      if (early !== undefined) throw early;
    }
    const found = await discover(input.bearer, input.signal);
    if (
      canRefresh &&
      stored !== undefined &&
      stored.issuer === found.as.issuer &&
      stored.resource === found.resource &&
      (await trySilentRefresh(stored, found))
    ) {
      return;
    }
    await interactive(input, found, stored);
  };

  const challenge: UpstreamAuth['challenge'] = async (given) => {
    const { status, wwwAuthenticate, signal } = given;
    const refused =
      'authorization' in given ? given.authorization?.replace(/^Bearer /, '') : current?.accessToken;
    const bearer = bearerChallenge(wwwAuthenticate);
    if (status === 403) {
      if (bearer.error !== 'insufficient_scope') throw refusedAccess('HTTP status 403');
      // protocol-mapping.md §8.8: one step-up per request; scopes already held cannot be stepped up.
      if (stepUps.has(signal)) throw refusedAccess('HTTP status 403 after a step-up');
      if (current !== undefined && bearer.scope !== undefined && covers(current.scope, bearer.scope)) {
        throw refusedAccess('HTTP status 403 for scopes the sign-in already has');
      }
      stepUps.add(signal);
    }
    await loaded;
    const input: ChallengeInput = { status, bearer, signal, refused };
    const run = queue.then(() => lock.hold(key, () => renew(input), { signal }));
    queue = run.catch(() => undefined);
    try {
      await run;
    } catch (error) {
      if (isBridgeError(error)) throw error;
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
