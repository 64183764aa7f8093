/**
 * The DPoP key pair of one sign-in (RFC 9449, docs/sign-in.md#sign-in-dpop): made with node:crypto,
 * kept as a private JWK inside the token record, which the stores encrypt (SECURITY.md "DPoP"),
 * so that a DPoP-bound token and its refresh keep working after a restart. The private key is
 * never logged nor put in an error: only the public JWK leaves this file (in proofs).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';

/** The proof algorithms the bridge can sign with, in its order of preference. */
export const DPOP_ALGS = ['ES256', 'RS256', 'EdDSA'] as const;
export type DpopAlg = (typeof DPOP_ALGS)[number];

/** What a token record keeps of the key (TokenRecord.dpopKey). */
export interface DpopKey {
  readonly alg: DpopAlg;
  /** The private key as a JWK: it lives only in the encrypted record. */
  readonly jwk: JsonWebKey;
}

export const isDpopAlg = (value: unknown): value is DpopAlg =>
  typeof value === 'string' && (DPOP_ALGS as readonly string[]).includes(value);

/**
 * The algorithm for a server's `dpop_signing_alg_values_supported`: ES256 when listed, else the
 * first listed one the bridge supports; undefined when none is. Without a list (the resource
 * asked for DPoP), ES256.
 */
export function chooseAlg(supported: unknown): DpopAlg | undefined {
  if (supported === undefined) return 'ES256';
  if (!Array.isArray(supported)) return undefined;
  if (supported.includes('ES256')) return 'ES256';
  return supported.find(isDpopAlg);
}

export function newDpopKey(alg: DpopAlg): DpopKey {
  const { privateKey } =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'RS256'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');
  return { alg, jwk: privateKey.export({ format: 'jwk' }) };
}

export const privateKeyOf = (key: DpopKey): KeyObject => createPrivateKey({ key: key.jwk, format: 'jwk' });

/** A public JWK: only the members of RFC 7638 for its key type. */
export type PublicJwk = Readonly<Record<string, string | undefined>>;

/** The public JWK of the key, with only its public members (RFC 9449 §4.2: `jwk` header). */
export function publicJwk(key: DpopKey): PublicJwk {
  const full = createPublicKey(privateKeyOf(key)).export({ format: 'jwk' });
  return full.kty === 'RSA'
    ? { kty: 'RSA', e: full.e, n: full.n }
    : full.kty === 'EC'
      ? { kty: 'EC', crv: full.crv, x: full.x, y: full.y }
      : { kty: 'OKP', crv: full.crv, x: full.x };
}

/** The JWK thumbprint (RFC 7638, SHA-256, base64url): the `cnf.jkt` a bound token names. */
export function thumbprint(jwk: PublicJwk): string {
  const kty = jwk['kty'];
  const members =
    kty === 'RSA'
      ? { e: jwk['e'], kty, n: jwk['n'] }
      : kty === 'EC'
        ? { crv: jwk['crv'], kty, x: jwk['x'], y: jwk['y'] }
        : { crv: jwk['crv'], kty, x: jwk['x'] };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

/** A stored value that has the shape of a DpopKey (record.ts). */
export const isDpopKey = (value: unknown): value is DpopKey => {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return isDpopAlg(v['alg']) && typeof v['jwk'] === 'object' && v['jwk'] !== null;
};
