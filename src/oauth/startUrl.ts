/**
 * The token of the one-time start URL `http://127.0.0.1:<port>/start/<token>`
 * (docs/sign-in.md#sign-in-receiver, docs/security.md#security-6): the browser opener gets this URL instead of the
 * authorization URL, so that the command line of the opener (world-readable on POSIX) holds no
 * `state` and no `code_challenge` (docs/security.md#security-14).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A source of random bytes; tests inject one that fails. */
export type RandomSource = (size: number) => Buffer;

/** 32 bytes = 256 bits, as base64url without padding: 43 characters (docs/sign-in.md#sign-in-start-url). */
const TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * A new start token, or undefined when there is no random data: then the bridge opens no browser
 * (docs/sign-in.md#sign-in-receiver "No random data"), rather than serving a start URL that someone could guess.
 */
export function newStartToken(random: RandomSource = randomBytes): string | undefined {
  try {
    const bytes = random(TOKEN_BYTES);
    if (bytes.length !== TOKEN_BYTES) return undefined;
    return bytes.toString('base64url');
  } catch {
    return undefined;
  }
}

/** True when `text` has the shape of a start token (it says nothing about whether it is ours). */
export const isStartTokenShape = (text: string): boolean => TOKEN_PATTERN.test(text);

/**
 * Compares a presented value with the expected one in constant time (docs/sign-in.md#sign-in-receiver, docs/security.md#security-6). Both are
 * hashed first, so that neither the content nor the length of the expected value leaks through
 * the time of the compare; `timingSafeEqual` needs equal lengths, which the digests have.
 */
export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
