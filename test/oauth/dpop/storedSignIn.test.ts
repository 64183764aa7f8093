/**
 * A stored DPoP-bound sign-in read by a new bridge process (docs/sign-in.md#sign-in-dpop): the
 * token goes with the DPoP scheme and a proof made with the stored key, without any sign-in
 * request; with `--no-dpop` no proof is made.
 */
import { describe, expect, it } from 'vitest';
import { newDpopKey, publicJwk, thumbprint } from '../../../src/oauth/dpop/key.js';
import { createMemoryStore, createProcessLock } from '../../../src/oauth/store/memoryStore.js';
import type { TokenStore } from '../../../src/oauth/store/types.js';
import { createUpstreamAuth } from '../../../src/oauth/upstreamAuth.js';
import { fakeConsent } from '../fakeConsent.js';
import { signInConfig } from '../signInHarness.js';
import { makeRecord } from '../storeTestKit.js';

const URL_WITH_QUERY = 'https://mcp.example.test/mcp?tenant=7';
const dpopKey = newDpopKey('ES256');
const stored = makeRecord({ url: URL_WITH_QUERY, tokenType: 'DPoP', dpopKey });

const claimsOf = (
  jwt: string | undefined,
): { header: Record<string, unknown>; claims: Record<string, unknown> } => {
  const [h, c] = (jwt ?? '..').split('.');
  const decode = (part: string | undefined): Record<string, unknown> =>
    JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  return { header: decode(h), claims: decode(c) };
};

function authWith(dpop: boolean | undefined) {
  let fetches = 0;
  const memory = createMemoryStore();
  // Every key reads the stored record: the one of the first process.
  const store: TokenStore = { ...memory, read: () => Promise.resolve(stored) };
  const auth = createUpstreamAuth(
    signInConfig({ url: URL_WITH_QUERY, ...(dpop === undefined ? {} : { dpop }) }),
    {
      fetch: () => {
        fetches += 1;
        return Promise.reject(new Error('no request expected'));
      },
      store,
      lock: createProcessLock(),
      logger: { log: () => undefined, enabled: () => false },
      env: {},
      consent: fakeConsent(''),
      now: () => 1_800_000_000_000,
    },
  );
  return { auth, fetches: () => fetches };
}

describe('a stored DPoP-bound sign-in', () => {
  it('is used by a new process with its stored key, and no sign-in request', async () => {
    const { auth, fetches } = authWith(undefined);
    await auth.load();
    expect(auth.header()).toBe('DPoP access-token-9f3b2c');
    const { header, claims } = claimsOf(auth.proof?.());
    expect(thumbprint(header['jwk'] as Record<string, string>)).toBe(thumbprint(publicJwk(dpopKey)));
    expect(claims).toMatchObject({
      htm: 'POST',
      htu: 'https://mcp.example.test/mcp',
      iat: 1_800_000_000,
      // base64url SHA-256 of "access-token-9f3b2c"
      ath: '2f7ZckHW3BxYnZuHQqX_GkLdFnk69OxCvAYkOKkt5f4',
    });
    expect(fetches()).toBe(0);
  });

  it('gets no proof and the Bearer scheme with --no-dpop', async () => {
    const { auth } = authWith(false);
    await auth.load();
    expect(auth.header()).toBe('Bearer access-token-9f3b2c');
    expect(auth.proof?.()).toBeUndefined();
  });
});
