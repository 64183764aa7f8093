/**
 * The DPoP proof JWT (RFC 9449 §4.2, docs/sign-in.md#sign-in-dpop): header `typ: dpop+jwt`, the
 * algorithm and the public JWK; claims `jti` (random), `htm`, `htu` (the URL without query and
 * fragment), `iat`, `ath` (SHA-256 of the access token, on requests to the resource) and `nonce`
 * when the server gave one.
 */
import { createHash, randomUUID, sign } from 'node:crypto';
import type { DpopKey } from './key.js';
import { privateKeyOf, publicJwk } from './key.js';

export interface ProofInput {
  readonly method: string;
  readonly url: string;
  readonly accessToken?: string | undefined;
  readonly nonce?: string | undefined;
  /** Epoch ms. */
  readonly now: number;
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** The `htu` of a URL: without its query and fragment (RFC 9449 §4.2). */
export function htu(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** The `ath` of an access token: base64url SHA-256 of its ASCII bytes (RFC 9449 §4.2). */
export const ath = (accessToken: string): string =>
  createHash('sha256').update(accessToken, 'ascii').digest('base64url');

export function dpopProof(key: DpopKey, input: ProofInput): string {
  const header = { typ: 'dpop+jwt', alg: key.alg, jwk: publicJwk(key) };
  const claims = {
    jti: randomUUID(),
    htm: input.method.toUpperCase(),
    htu: htu(input.url),
    iat: Math.floor(input.now / 1000),
    ...(input.accessToken === undefined ? {} : { ath: ath(input.accessToken) }),
    ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
  };
  const signingInput = `${b64(header)}.${b64(claims)}`;
  const data = Buffer.from(signingInput, 'ascii');
  const privateKey = privateKeyOf(key);
  const signature =
    key.alg === 'ES256'
      ? sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })
      : key.alg === 'RS256'
        ? sign('sha256', data, privateKey)
        : sign(null, data, privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
}
