/**
 * The private key of `--client-key-file` for `private_key_jwt` (RFC 7523 §2.2,
 * docs/sign-in.md#sign-in-grants): a PEM private key (PKCS #8, SEC 1 or PKCS #1), its algorithm
 * from the key itself: P-256 → ES256, RSA → RS256, Ed25519 → EdDSA. Made into a non-extractable
 * WebCrypto key that openid-client signs the client assertion with; nothing of the key is ever
 * logged or put in an error.
 */
import { createPrivateKey, webcrypto } from 'node:crypto';
import { BridgeError } from '../../protocol/bridgeError.js';

export type ClientKeyAlg = 'ES256' | 'RS256' | 'EdDSA';

export interface ClientKey {
  readonly alg: ClientKeyAlg;
  readonly key: webcrypto.CryptoKey;
}

const refused = (why: string): BridgeError =>
  new BridgeError('sign_in_failed', { detail: `the key of --client-key-file ${why}` });

type Import = {
  readonly alg: ClientKeyAlg;
  readonly params: Parameters<typeof webcrypto.subtle.importKey>[2];
};

function importOf(type: string | undefined, curve: string | undefined): Import {
  if (type === 'ec' && curve === 'prime256v1')
    return { alg: 'ES256', params: { name: 'ECDSA', namedCurve: 'P-256' } };
  if (type === 'rsa') return { alg: 'RS256', params: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } };
  if (type === 'ed25519') return { alg: 'EdDSA', params: { name: 'Ed25519' } };
  throw refused('is not a P-256, RSA or Ed25519 private key (ES256, RS256 or EdDSA)');
}

/** The signing key of a PEM text. */
export async function clientKeyOf(pem: string): Promise<ClientKey> {
  let der: Buffer;
  let chosen: Import;
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    chosen = importOf(key.asymmetricKeyType, key.asymmetricKeyDetails?.namedCurve);
    der = key.export({ type: 'pkcs8', format: 'der' });
  } catch (error) {
    if (error instanceof BridgeError) throw error;
    throw refused('is not a PEM private key');
  }
  try {
    const key = await webcrypto.subtle.importKey('pkcs8', der, chosen.params, false, ['sign']);
    return { alg: chosen.alg, key };
  } catch {
    throw refused('cannot be used for signing');
  } finally {
    der.fill(0);
  }
}
