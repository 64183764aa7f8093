import { Readable } from 'node:stream';
import { firstValueFrom, NEVER, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { withSignIn } from '../../../src/edges/http/signInRetry.js';
import type { HttpResponse } from '../../../src/edges/http/response.js';
import type { UpstreamAuth } from '../../../src/ports/signIn.js';

const response = (statusCode: number, headers: Record<string, string> = {}): HttpResponse => ({
  statusCode,
  headers,
  body: Readable.from([]),
});

const NONCE_CHALLENGE = 'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce"';

/** An auth with a DPoP token whose nonce memory is that of upstreamAuth.ts (kept when new). */
function dpopAuth() {
  const nonces: (string | undefined)[] = [];
  let nonce: string | undefined;
  let challenges = 0;
  const auth: UpstreamAuth = {
    header: () => 'DPoP token-1',
    proof: () => {
      nonces.push(nonce);
      return `proof-${nonces.length}`;
    },
    takeNonce: ({ wwwAuthenticate, dpopNonce }) => {
      if (wwwAuthenticate?.includes('use_dpop_nonce') !== true) return 'none';
      if (dpopNonce === undefined || dpopNonce === nonce) return 'again';
      nonce = dpopNonce;
      return 'new';
    },
    challenge: () => {
      challenges += 1;
      return Promise.resolve();
    },
    signedIn$: NEVER,
  };
  return { auth, nonces, challenges: () => challenges };
}

const ctx = (auth: UpstreamAuth) => ({ auth, method: 'tools/list', signal: new AbortController().signal });

describe('the DPoP nonce of the resource', () => {
  it('sends the request once more with the new nonce, without a sign-in', async () => {
    const { auth, nonces, challenges } = dpopAuth();
    const answers = [
      response(401, { 'www-authenticate': NONCE_CHALLENGE, 'dpop-nonce': 'rs-nonce-1' }),
      response(200),
    ];
    const sent: Record<string, string>[] = [];
    const result = await firstValueFrom(
      withSignIn((headers) => {
        sent.push(headers);
        return of(answers.shift() ?? response(500));
      }, ctx(auth)),
    );
    expect(result.statusCode).toBe(200);
    expect(nonces).toEqual([undefined, 'rs-nonce-1']);
    expect(sent).toEqual([
      { Authorization: 'DPoP token-1', DPoP: 'proof-1' },
      { Authorization: 'DPoP token-1', DPoP: 'proof-2' },
    ]);
    expect(challenges()).toBe(0);
  });

  it('ends the request with access_refused on a second nonce challenge', async () => {
    const { auth, challenges } = dpopAuth();
    const answers = [
      response(401, { 'www-authenticate': NONCE_CHALLENGE, 'dpop-nonce': 'rs-nonce-1' }),
      response(401, { 'www-authenticate': NONCE_CHALLENGE, 'dpop-nonce': 'rs-nonce-2' }),
      response(200),
    ];
    let posts = 0;
    const result = firstValueFrom(
      withSignIn(() => {
        posts += 1;
        return of(answers.shift() ?? response(500));
      }, ctx(auth)),
    );
    await expect(result).rejects.toMatchObject({
      code: 'access_refused',
      detail: 'tools/list: the upstream server refused the DPoP nonce of the retried request',
    });
    expect(posts).toBe(2);
    expect(challenges()).toBe(0);
  });
});
