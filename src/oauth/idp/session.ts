/**
 * The IdP session of `--grant id-jag` (docs/sign-in.md#sign-in-idp-session): one ID token and
 * one IdP refresh token per IdP issuer, account and IdP client, in the token store (encrypted as
 * every record) under the sign-in lock of its own key, so that every bridge process and every
 * server of that IdP share one sign-in at the IdP. The ID token is taken from the store while it
 * is fresh; else the stored IdP refresh token is spent, at most once (refreshMark.ts); else the
 * user signs in at the IdP in the browser (idpSignIn.ts). Each server still gets its own ID-JAG
 * and access token from that ID token.
 */
import type * as client from 'openid-client';
import { isBridgeError } from '../../protocol/bridgeError.js';
import { recordWrites } from '../recordWrites.js';
import { refreshUnanswered } from '../refreshMark.js';
import type { RenewalContext } from '../renewal.js';
import { LockLostError } from '../store/hold.js';
import { idpSessionKey } from '../store/identity.js';
import type { LockHold, RecordKey, TokenRecord } from '../store/types.js';
import { tokenRecord, usableAt } from '../tokens.js';
import type { IdpMetadata } from './idpMetadata.js';
import { IDP_SCOPE, idpClient, idpConfiguration, refreshAtIdp, signInAtIdp } from './idpSignIn.js';
import type { IdpTokens } from './idpSignIn.js';
import type { IdpSettings } from './types.js';

const SCOPE = 'oauth';

/** The key of the IdP session of this sign-in's account (store/identity.ts). */
export const sessionKeyOf = (ctx: RenewalContext, idp: IdpSettings): RecordKey =>
  idpSessionKey({
    bridgeName: ctx.config.bridgeName,
    account: ctx.config.account,
    issuer: idp.issuer,
    clientId: idp.clientId,
  });

/** The record of an IdP session: the IdP's tokens, `expiresAt` the ID token's expiry. */
function sessionRecord(
  key: RecordKey,
  idp: IdpSettings,
  tokens: IdpTokens,
  previous: TokenRecord | undefined,
  now: number,
): TokenRecord {
  const record = tokenRecord({
    key,
    issuer: idp.issuer,
    resource: idp.issuer,
    client: idpClient(idp),
    response: tokens.response,
    requestedScope: IDP_SCOPE,
    ...(previous === undefined ? {} : { previous }),
    now,
  });
  return { ...record, idToken: tokens.idToken, expiresAt: tokens.expiresAt };
}

/** The ID token of a stored session while it is fresh (expires more than a minute later), else undefined. */
const freshIdToken = (stored: TokenRecord | undefined, now: number): string | undefined =>
  stored?.idToken !== undefined && usableAt(stored, now) ? stored.idToken : undefined;

/**
 * Whether a stored session gives an ID token without a sign-in at the IdP: a fresh ID token, or
 * an IdP refresh token that was never sent without an answer (docs/sign-in.md#sign-in-idp-session).
 * The early refusals of the browser skip such a session (idp/earlyRefusal.ts), as they skip a
 * stored token or refresh token of the server (renewUnderLock.ts).
 */
export const sessionWithoutSignIn = (stored: TokenRecord | undefined, now: number): boolean =>
  freshIdToken(stored, now) !== undefined ||
  (stored?.refreshToken !== undefined && !refreshUnanswered(stored));

/** A valid ID token of the IdP: from its session, by its refresh, else by a sign-in at the IdP. */
export function idTokenFromSession(
  ctx: RenewalContext,
  idp: IdpSettings,
  metadata: IdpMetadata,
): Promise<string> {
  const key = sessionKeyOf(ctx, idp);
  return ctx.lock
    .hold(key, (held) => underLock(ctx, idp, metadata, key, held), { signal: ctx.held.signal })
    .catch((error: unknown) => {
      throw ctx.held.signal.aborted ? new LockLostError() : error;
    });
}

async function underLock(
  ctx: RenewalContext,
  idp: IdpSettings,
  metadata: IdpMetadata,
  key: RecordKey,
  held: LockHold,
  again = true,
): Promise<string> {
  const stored = await ctx.store.read(key);
  const fresh = freshIdToken(stored, ctx.now());
  if (fresh !== undefined) {
    ctx.logger.log(SCOPE, 'debug', 'the bridge uses the stored IdP session');
    return fresh;
  }
  const stop = AbortSignal.any([ctx.held.signal, held.signal]);
  const config = idpConfiguration(ctx, idp, metadata, stop);
  const writes = recordWrites(ctx.store, ctx.logger, () => undefined);
  if (stored?.refreshToken !== undefined) {
    const refreshed = await refreshSession(ctx, { idp, config, key, held, stored, writes });
    if (refreshed === 'changed') {
      // Another holder renewed the session meanwhile; a second change under a confirmed hold is a
      // writer outside the lock: spend nothing (renewUnderLock.ts does the same).
      if (again) return underLock(ctx, idp, metadata, key, held, false);
      throw new LockLostError();
    }
    if (refreshed !== undefined) return refreshed.idToken;
  }
  const tokens = await signInAtIdp(ctx, config, held);
  const previous = await ctx.store.read(key);
  await writes.save(
    sessionRecord(key, idp, tokens, undefined, Math.max(ctx.now(), (previous?.savedAt ?? 0) + 1)),
    held,
  );
  ctx.logger.log(SCOPE, 'info', 'the sign-in at the IdP completed');
  return tokens.idToken;
}

interface RefreshInput {
  readonly idp: IdpSettings;
  readonly config: client.Configuration;
  readonly key: RecordKey;
  readonly held: LockHold;
  readonly stored: TokenRecord;
  readonly writes: ReturnType<typeof recordWrites>;
}

/**
 * The refresh of the IdP session: the new ID token; `changed` when another holder wrote the
 * session meanwhile; undefined (logged) when there is none to spend or the IdP refused it.
 */
async function refreshSession(
  ctx: RenewalContext,
  input: RefreshInput,
): Promise<{ readonly idToken: string } | 'changed' | undefined> {
  const { stored, held, writes } = input;
  const refreshToken = stored.refreshToken;
  if (refreshToken === undefined) return undefined;
  if (refreshUnanswered(stored)) {
    ctx.logger.log(
      SCOPE,
      'warn',
      'a refresh of the IdP session got no answer (a bridge stopped during it): its refresh token is not sent again, a new sign-in at the IdP follows',
    );
    return undefined;
  }
  // A refresh token is sent at most once (docs/sign-in.md#sign-in-refresh): only while the lock is
  // still ours, and marked as sent before it is.
  await held.confirm();
  const mark = await writes.markRefresh({ ...stored, refreshToken });
  if (mark === 'changed') return 'changed';
  if (mark === 'failed') return undefined;
  let tokens: IdpTokens;
  try {
    tokens = await refreshAtIdp(input.config, refreshToken);
  } catch (error) {
    if (held.signal.aborted || ctx.held.signal.aborted) throw new LockLostError();
    const detail = isBridgeError(error) ? (error.detail ?? error.code) : 'the refresh failed';
    ctx.logger.log(
      SCOPE,
      'warn',
      `the IdP refused the refresh of the IdP session (${detail}); a new sign-in at the IdP follows`,
    );
    return undefined;
  }
  await writes.save(sessionRecord(input.key, input.idp, tokens, stored, ctx.now()), held);
  ctx.logger.log(SCOPE, 'info', 'the bridge refreshed the IdP session');
  return { idToken: tokens.idToken };
}
