import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chooseAlg, newDpopKey, publicJwk, thumbprint } from '../../../src/oauth/dpop/key.js';
import type { DpopAlg } from '../../../src/oauth/dpop/key.js';
import { ath, dpopProof, htu } from '../../../src/oauth/dpop/proof.js';

const part = (jwt: string, index: number): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[index] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;

describe('DPoP proofs (RFC 9449)', () => {
  it('computes the RFC 7638 §3.1 thumbprint of its example key', () => {
    const n =
      '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw';
    expect(thumbprint({ kty: 'RSA', n, e: 'AQAB', alg: 'RS256', kid: '2011-04-29' })).toBe(
      'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
    );
  });

  it('computes the ath of the RFC 9449 §7.1 example token', () => {
    expect(ath('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU')).toBe(
      'fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo',
    );
  });

  it('drops the query and the fragment from htu', () => {
    expect(htu('https://mcp.example.com/api/mcp?key=secret#frag')).toBe('https://mcp.example.com/api/mcp');
  });

  it.each([
    [['RS256', 'ES256'], 'ES256'],
    [['PS256', 'EdDSA', 'RS256'], 'EdDSA'],
    [['PS256'], undefined],
    ['ES256', undefined],
    [undefined, 'ES256'],
  ])('chooses the algorithm of %j: %s', (listed, expected) => {
    expect(chooseAlg(listed)).toBe(expected);
  });

  it.each<[DpopAlg]>([['ES256'], ['RS256'], ['EdDSA']])(
    'signs a %s proof with typ, public jwk, htm, htu, iat, ath and nonce',
    (alg) => {
      const key = newDpopKey(alg);
      const proof = dpopProof(key, {
        method: 'post',
        url: 'https://mcp.example.com/mcp?x=1',
        accessToken: 'Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU',
        nonce: 'n-1',
        now: 1_700_000_000_999,
      });
      const header = part(proof, 0);
      const claims = part(proof, 1);
      expect(header['typ']).toBe('dpop+jwt');
      expect(header['alg']).toBe(alg);
      const jwk = header['jwk'] as Record<string, string>;
      expect(jwk).not.toHaveProperty('d');
      expect(jwk).not.toHaveProperty('p');
      expect(thumbprint(jwk)).toBe(thumbprint(publicJwk(key)));
      expect(claims).toMatchObject({
        htm: 'POST',
        htu: 'https://mcp.example.com/mcp',
        iat: 1_700_000_000,
        ath: 'fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo',
        nonce: 'n-1',
      });
      expect(typeof claims['jti']).toBe('string');
      const [h, c, s] = proof.split('.') as [string, string, string];
      const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
      const data = Buffer.from(`${h}.${c}`, 'ascii');
      const signature = Buffer.from(s, 'base64url');
      const ok =
        alg === 'ES256'
          ? verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)
          : verify(alg === 'RS256' ? 'sha256' : null, data, publicKey, signature);
      expect(ok).toBe(true);
    },
  );

  it('gives each proof its own jti and no ath or nonce when none is given', () => {
    const key = newDpopKey('ES256');
    const input = { method: 'POST', url: 'https://as.example.com/token', now: 1_700_000_000_000 };
    const one = part(dpopProof(key, input), 1);
    const two = part(dpopProof(key, input), 1);
    expect(one['jti']).not.toBe(two['jti']);
    expect(one).not.toHaveProperty('ath');
    expect(one).not.toHaveProperty('nonce');
  });
});
