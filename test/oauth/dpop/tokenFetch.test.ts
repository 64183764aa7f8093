import { describe, expect, it } from 'vitest';
import type * as client from 'openid-client';
import { newDpopKey } from '../../../src/oauth/dpop/key.js';
import { dpopSession } from '../../../src/oauth/dpop/session.js';
import { dpopTokenFetch } from '../../../src/oauth/dpop/tokenFetch.js';

const nonceOf = (proof: string | undefined): unknown =>
  (
    JSON.parse(Buffer.from((proof ?? '').split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      nonce?: unknown;
    }
  ).nonce;

const reply = (status: number, body: unknown, nonce?: string): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...(nonce === undefined ? {} : { 'dpop-nonce': nonce }) },
  });

/** A token endpoint that answers the given responses in turn and records each DPoP header. */
function endpoint(responses: Response[]) {
  const proofs: (string | undefined)[] = [];
  const fetch: client.CustomFetch = (_url, options) => {
    proofs.push(options.headers['dpop']);
    const next = responses.shift();
    return next === undefined ? Promise.reject(new Error('no more responses')) : Promise.resolve(next);
  };
  return { fetch, proofs };
}

const options = (): Parameters<client.CustomFetch>[1] => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'authorization_code' }),
  redirect: 'manual',
  signal: undefined as unknown as AbortSignal,
});

describe('DPoP on the token requests', () => {
  it('retries once with the nonce of a use_dpop_nonce answer and keeps it for the server', async () => {
    const { fetch, proofs } = endpoint([
      reply(400, { error: 'use_dpop_nonce' }, 'nonce-1'),
      reply(200, { access_token: 'a', token_type: 'DPoP' }),
    ]);
    const session = dpopSession(true);
    const wrapped = dpopTokenFetch(fetch, newDpopKey('ES256'), session, () => 1_700_000_000_000);
    const response = await wrapped('https://as.example.com/token', options());
    expect(response.status).toBe(200);
    expect(proofs.map(nonceOf)).toEqual([undefined, 'nonce-1']);
    expect(session.serverNonces.get('https://as.example.com')).toBe('nonce-1');
  });

  it('passes a second use_dpop_nonce refusal on without a third request', async () => {
    const { fetch, proofs } = endpoint([
      reply(400, { error: 'use_dpop_nonce' }, 'nonce-1'),
      reply(400, { error: 'use_dpop_nonce' }, 'nonce-2'),
      reply(200, { access_token: 'a', token_type: 'DPoP' }),
    ]);
    const wrapped = dpopTokenFetch(fetch, newDpopKey('ES256'), dpopSession(true), () => 0);
    const response = await wrapped('https://as.example.com/token', options());
    expect(response.status).toBe(400);
    expect(proofs.map(nonceOf)).toEqual([undefined, 'nonce-1']);
  });

  it('does not retry a 400 of another error, even with a nonce', async () => {
    const { fetch, proofs } = endpoint([
      reply(400, { error: 'invalid_grant' }, 'nonce-1'),
      reply(200, { access_token: 'a', token_type: 'DPoP' }),
    ]);
    const wrapped = dpopTokenFetch(fetch, newDpopKey('ES256'), dpopSession(true), () => 0);
    const response = await wrapped('https://as.example.com/token', options());
    expect(response.status).toBe(400);
    expect(proofs).toHaveLength(1);
  });
});
