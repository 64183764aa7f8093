/**
 * DPoP on the requests to the token endpoint (RFC 9449 §5 and RFC 9449 §8; docs/sign-in.md#sign-in-dpop):
 * every POST of openid-client through this fetch carries a fresh proof with the latest nonce of
 * that server. A `400` whose `DPoP-Nonce` header gives a new nonce with `use_dpop_nonce` goes once
 * more with it; a second refusal passes on to openid-client, which reports it as the token error.
 */
import type * as client from 'openid-client';
import type { DpopKey } from './key.js';
import { dpopProof } from './proof.js';
import { rememberServerNonce, validNonce } from './session.js';
import type { DpopSession } from './session.js';

/** True when a 400 body names `use_dpop_nonce` (read from a clone: openid-client reads the original). */
async function nonceError(response: Response): Promise<boolean> {
  if (response.status !== 400) return false;
  try {
    const body = (await response.clone().json()) as { error?: unknown } | null;
    return body?.error === 'use_dpop_nonce';
  } catch {
    return false;
  }
}

export function dpopTokenFetch(
  fetch: client.CustomFetch,
  key: DpopKey,
  session: DpopSession,
  now: () => number,
): client.CustomFetch {
  return async (url, options) => {
    if (options.method.toUpperCase() !== 'POST') return fetch(url, options);
    const origin = new URL(url).origin;
    const send = (): Promise<Response> =>
      fetch(url, {
        ...options,
        headers: {
          ...options.headers,
          dpop: dpopProof(key, { method: 'POST', url, nonce: session.serverNonces.get(origin), now: now() }),
        },
      });
    const response = await send();
    const nonce = validNonce(response.headers.get('dpop-nonce'));
    if (nonce === undefined) return response;
    const before = session.serverNonces.get(origin);
    rememberServerNonce(session, origin, nonce);
    if (nonce === before || !(await nonceError(response))) return response;
    await response.body?.cancel().catch(() => undefined);
    return send();
  };
}
