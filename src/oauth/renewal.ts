/**
 * The ways to a new token once the lock is held (upstreamAuth.ts decides which): discovery of
 * the resource and its authorization server, a silent refresh (docs/sign-in.md#sign-in-trigger,
 * docs/sign-in.md#sign-in-refresh), and a new interactive sign-in with the client of docs/sign-in.md#sign-in-registration
 * (docs/sign-in.md#sign-in-registration: never the client of another issuer).
 *
 * A server that refuses the client of a client ID metadata document (the redirect, or the token
 * endpoint, answers `invalid_client` or `unauthorized_client`) gets one line, and the sign-in
 * starts again once with a dynamically registered client: a new receiver, a new sign-in line, a
 * new start URL for the browser or a new URL elicitation. The refusal is remembered for the
 * issuer for the rest of the process, and the stored record then holds the dynamic client, which
 * later processes use again (registration.ts). A server that refuses the document with an error
 * page of its own, without a redirect, cannot be told from a user who did not sign in: that
 * sign-in ends with `sign_in_timeout` (README.md "Sign-in and tokens").
 */
import type { ServerMetadata } from 'openid-client';
import type { Logger } from '../ports/logger.js';
import type { ConsentPort } from '../ports/signIn.js';
import type { TraceContext } from '../ports/telemetry.js';
import { BridgeError, isBridgeError } from '../protocol/bridgeError.js';
import type { BearerChallenge } from './challenge.js';
import { registerClient } from './dynamicRegistration.js';
import { keyForRefresh, keyForSignIn, withDpop } from './dpop/index.js';
import type { DpopSession } from './dpop/index.js';
import { configuration, refresh } from './flow.js';
import type { Fetch } from './http.js';
import type { InteractiveDeps, InteractiveSettings, InteractiveState } from './interactive.js';
import { signInInteractively } from './interactive.js';
import type { SignInConfig } from './signInConfig.js';
import { chooseRegistration } from './registration.js';
import { discoverResource } from './resourceMetadata.js';
import { initialScope, stepUpScope } from './scopes.js';
import { discoverServer } from './serverMetadata.js';
import { LockLostError } from './store/hold.js';
import type {
  ClientRegistration,
  LockHold,
  RecordKey,
  SignInLock,
  TokenRecord,
  TokenStore,
} from './store/types.js';
import { tokenRecord } from './tokens.js';

const SCOPE = 'oauth';

/** What discovery found for the MCP URL. */
export interface Discovered {
  readonly resource: string;
  readonly scopesSupported: readonly string[] | undefined;
  readonly as: ServerMetadata;
  readonly metadataUrl: string;
}

/** One 401/403 handed to the sign-in. */
export interface ChallengeInput {
  readonly status: 401 | 403;
  readonly bearer: BearerChallenge;
  readonly signal: AbortSignal;
  /** The access token the refused request carried (undefined: none). */
  readonly refused: string | undefined;
  /** The client connection whose request needs the sign-in; undefined: the relay's port. */
  readonly consent?: ConsentPort | undefined;
  /** The trace context of the refused request: the parent of the sign-in's spans. */
  readonly trace?: TraceContext | undefined;
}

/** What the steps share with createUpstreamAuth. */
export interface RenewalContext {
  readonly config: SignInConfig;
  readonly fetch: Fetch;
  readonly logger: Logger;
  readonly key: RecordKey;
  readonly now: () => number;
  readonly settings: InteractiveSettings;
  readonly interactiveDeps: InteractiveDeps;
  readonly state: InteractiveState;
  /** The record in use (its scope is the granted one of a step-up). */
  readonly current: () => TokenRecord | undefined;
  /** The hold of the sign-in lock this renewal runs under (hold.ts). */
  readonly held: LockHold;
  /** Stores a record and makes the kept one current; rejects with a LockLostError, storing nothing, once the hold is lost. */
  readonly save: (record: TokenRecord) => Promise<void>;
  /** The issuers that refused the client metadata document in this process. */
  readonly refusedDocuments: Set<string>;
  /** DPoP of this upstream (docs/sign-in.md#sign-in-dpop). */
  readonly dpop: DpopSession;
  /** The token store and its lock, for the records beside this one: the IdP session (idp/session.ts). */
  readonly store: TokenStore;
  readonly lock: SignInLock;
}

export async function discover(
  ctx: Pick<RenewalContext, 'config' | 'fetch'>,
  bearer: BearerChallenge,
  signal: AbortSignal,
): Promise<Discovered> {
  const resource = await discoverResource({
    fetch: ctx.fetch,
    mcpUrl: ctx.config.url,
    ...(bearer.resourceMetadata === undefined ? {} : { headerUrl: bearer.resourceMetadata }),
    signal,
  });
  const found = await discoverServer({
    fetch: ctx.fetch,
    issuer: resource.issuer,
    mcpUrl: ctx.config.url,
    signal,
  });
  return {
    resource: resource.resource,
    scopesSupported: resource.scopesSupported,
    as: found.metadata,
    metadataUrl: found.metadataUrl,
  };
}

/** The secret of a client: the dynamic client's own, or MCP_BRIDGE_CLIENT_SECRET for its issuer only. */
const secretOf = (config: SignInConfig, client: ClientRegistration, issuer: string): string | undefined =>
  client.source === 'dynamic'
    ? client.clientSecret
    : client.source === 'pre-registered' && config.clientIssuer === issuer
      ? config.clientSecret
      : undefined;

/**
 * A refresh with the stored refresh token; false (logged) when the server refuses it. The caller
 * has confirmed its hold of the lock just before (upstreamAuth.ts); a hold lost meanwhile aborts
 * the request and the write (LockLostError), it is never taken for a refusal.
 */
export async function silentRefresh(
  ctx: RenewalContext,
  stored: TokenRecord,
  found: Discovered,
): Promise<boolean> {
  if (stored.refreshToken === undefined) return false;
  try {
    const secret = secretOf(ctx.config, stored.client, found.as.issuer);
    const dpopKey = keyForRefresh(ctx.dpop, stored);
    const cfg = withDpop(
      configuration(found.as, stored.client, secret, ctx.fetch, ctx.config.url, ctx.held.signal),
      dpopKey,
      ctx.dpop,
      ctx.now,
    );
    const response = await refresh(cfg, { refreshToken: stored.refreshToken, resource: stored.resource });
    await ctx.save(
      tokenRecord({
        key: ctx.key,
        issuer: stored.issuer,
        resource: stored.resource,
        client: stored.client,
        response,
        requestedScope: undefined,
        dpopKey,
        previous: stored,
        now: ctx.now(),
      }),
    );
    ctx.logger.log(SCOPE, 'info', 'the bridge refreshed the sign-in');
    return true;
  } catch (error) {
    if (error instanceof LockLostError || ctx.held.signal.aborted) throw new LockLostError();
    const detail = isBridgeError(error) ? (error.detail ?? error.code) : 'the refresh failed';
    ctx.logger.log(
      SCOPE,
      'warn',
      `the authorization server refused the refresh (${detail}); a new sign-in follows`,
    );
    return false;
  }
}

/** The scope a new sign-in asks for: a step-up's after a 403, else the first one (docs/sign-in.md#sign-in-scopes). */
export function scopeToAsk(
  ctx: Pick<RenewalContext, 'current'>,
  input: Pick<ChallengeInput, 'status' | 'bearer'>,
  found: Discovered,
  sameIssuer: TokenRecord | undefined,
): string | undefined {
  return input.status === 403
    ? stepUpScope({
        granted: ctx.current()?.scope ?? sameIssuer?.scope,
        challengeScope: input.bearer.scope,
        serverScopes: found.as.scopes_supported,
      })
    : initialScope({
        challengeScope: input.bearer.scope,
        resourceScopes: found.scopesSupported,
        serverScopes: found.as.scopes_supported,
      });
}

/** An interactive sign-in at the server discovery found, with a client of that server. */
export async function signInAnew(
  ctx: RenewalContext,
  input: ChallengeInput,
  found: Discovered,
  stored: TokenRecord | undefined,
): Promise<void> {
  const { config, logger } = ctx;
  const sameIssuer = stored?.issuer === found.as.issuer ? stored : undefined;
  if (stored !== undefined && sameIssuer === undefined) {
    logger.log(
      SCOPE,
      'info',
      'the upstream server names another authorization server than the one of the stored sign-in: the bridge signs in there anew',
    );
  }
  const scope = scopeToAsk(ctx, input, found, sameIssuer);
  let client: ClientRegistration | undefined;
  const dpopKey = keyForSignIn(ctx.dpop, found.as);
  const prepare = async (redirectUri: string) => {
    const choice = chooseRegistration({
      config,
      as: found.as,
      stored: sameIssuer,
      logger,
      redirectUri,
      documentRefused: ctx.refusedDocuments.has(found.as.issuer),
    });
    const made =
      choice.kind === 'ready'
        ? choice
        : await registerClient(
            found.as,
            { redirectUri, clientName: config.clientName },
            ctx.fetch,
            config.url,
          );
    client = made.registration;
    const made$ = configuration(found.as, made.registration, made.secret, ctx.fetch, config.url);
    return withDpop(made$, dpopKey, ctx.dpop, ctx.now);
  };
  let refused: string | undefined;
  const signIn = () =>
    signInInteractively(ctx.settings, ctx.interactiveDeps, ctx.state, {
      prepare,
      mcpUrl: config.url,
      resource: found.resource,
      scope,
      // A lost hold ends the sign-in, and no lost hold shows one (README.md "Several windows").
      signal: AbortSignal.any([input.signal, ctx.held.signal]),
      confirm: () => ctx.held.confirm(),
      // Only the document's client, and only once: the second sign-in has a dynamic client.
      clientRefused: (code) => {
        if (client?.source !== 'metadata-document' || ctx.refusedDocuments.has(found.as.issuer)) return false;
        refused = code;
        return true;
      },
    });
  const response = await signIn().catch((error: unknown) => {
    if (refused === undefined) throw error;
    ctx.refusedDocuments.add(found.as.issuer);
    const registers = found.as.registration_endpoint !== undefined;
    logger.log(
      SCOPE,
      'warn',
      registers
        ? `the authorization server refused the client metadata document of the bridge (${refused}): the bridge registers a client dynamically and starts the sign-in again`
        : `the authorization server refused the client metadata document of the bridge (${refused}), and it offers no dynamic client registration`,
    );
    return signIn();
  });
  if (client === undefined) throw new BridgeError('internal', { detail: 'the sign-in has no client' });
  await ctx.save(
    tokenRecord({
      key: ctx.key,
      issuer: found.as.issuer,
      resource: found.resource,
      client,
      response,
      requestedScope: scope,
      dpopKey,
      now: Math.max(ctx.now(), (stored?.savedAt ?? 0) + 1),
    }),
  );
  logger.log(SCOPE, 'info', 'the sign-in completed');
}
