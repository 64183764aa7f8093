/**
 * DPoP (RFC 9449) of the sign-in, kept apart from the grants (docs/sign-in.md#sign-in-dpop): the
 * key of a sign-in, its proofs on the token requests (tokenFetch.ts) and on the requests to the
 * resource (resourceProof), and the nonces of each server (session.ts).
 */
import * as client from 'openid-client';
import type { ServerMetadata } from 'openid-client';
import type { TokenRecord } from '../store/types.js';
import { chooseAlg, newDpopKey } from './key.js';
import type { DpopKey } from './key.js';
import { dpopProof } from './proof.js';
import type { DpopSession } from './session.js';
import { dpopTokenFetch } from './tokenFetch.js';

export { dpopSession, asksDpop, asksNonce, validNonce } from './session.js';
export type { DpopSession } from './session.js';
export type { DpopKey } from './key.js';

/** The configurations whose token requests carry proofs: a DPoP token from them is accepted. */
const bound = new WeakSet<client.Configuration>();

export const isDpopBound = (config: client.Configuration): boolean => bound.has(config);

/**
 * The key of a new sign-in: a fresh one when DPoP is on and the authorization server lists a
 * supported `dpop_signing_alg_values_supported` or the resource asked for DPoP; else none (Bearer).
 */
export function keyForSignIn(session: DpopSession, as: ServerMetadata): DpopKey | undefined {
  if (!session.enabled) return undefined;
  const listed = as.dpop_signing_alg_values_supported;
  if (listed === undefined && !session.resourceAsked) return undefined;
  const alg = chooseAlg(listed);
  return alg === undefined ? undefined : newDpopKey(alg);
}

/** The key a refresh of `stored` uses: the one its token is bound to (RFC 9449 §5). */
export const keyForRefresh = (session: DpopSession, stored: TokenRecord): DpopKey | undefined =>
  session.enabled ? stored.dpopKey : undefined;

/** Makes the token requests of `config` carry proofs of `key`; returns `config`. */
export function withDpop(
  config: client.Configuration,
  key: DpopKey | undefined,
  session: DpopSession,
  now: () => number,
): client.Configuration {
  if (key === undefined) return config;
  const inner = config[client.customFetch];
  if (inner === undefined) return config;
  config[client.customFetch] = dpopTokenFetch(inner, key, session, now);
  bound.add(config);
  return config;
}

/**
 * The `DPoP` header of a request to the resource with a DPoP token, or undefined for a Bearer one.
 * With `--no-dpop` a stored DPoP token gets none: its 401 leads to a sign-in without DPoP.
 */
export function resourceProof(
  record: TokenRecord | undefined,
  session: DpopSession,
  request: { readonly method: string; readonly url: string; readonly now: number },
): string | undefined {
  if (!session.enabled || record?.dpopKey === undefined || record.tokenType !== 'DPoP') return undefined;
  return dpopProof(record.dpopKey, {
    ...request,
    accessToken: record.accessToken,
    nonce: session.resourceNonce,
  });
}
