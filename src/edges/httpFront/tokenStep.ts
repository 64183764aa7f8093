/**
 * The token step of the front end (docs/serve.md#serve-security, docs/serve.md#serve-token-limit):
 * the bearer token compared in constant time, wrong tokens counted per address, and the refusal.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { firstHeader } from './rules.js';
import type { RefusalCause } from './rules.js';
import { refuse } from './sessionTable.js';
import type { ExtraHeaders } from './streams.js';
import { sourceOf } from './tokenThrottle.js';
import type { TokenThrottle } from './tokenThrottle.js';

/** What the token step of one server needs. */
export interface TokenFront {
  /** The SHA-256 of the token; undefined: the server has none. */
  readonly tokenDigest: Buffer | undefined;
  readonly throttle: TokenThrottle;
  readonly config: { readonly refused?: (limit: string) => void };
}

export const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** docs/serve.md#serve-security: equal-length digests compared in constant time. */
export function bearerMatches(authorization: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '');
  const given = digest(match?.[1] ?? '');
  return timingSafeEqual(given, expected) && match !== null;
}

/**
 * The token step (docs/serve.md#serve-token-limit): an address past its wrong tokens gets `429`
 * and its token is not compared; a wrong token counts for its address; none does not.
 */
function checkToken(
  req: IncomingMessage,
  expected: Buffer,
  throttle: TokenThrottle,
): { readonly cause: RefusalCause; readonly headers: ExtraHeaders } | undefined {
  const source = sourceOf(req.socket.remoteAddress);
  const wait = throttle.blockedFor(source);
  if (wait !== undefined)
    return { cause: 'too_many_token_failures', headers: { 'retry-after': String(wait) } };
  const authorization = firstHeader(req.headers.authorization);
  if (bearerMatches(authorization, expected)) return undefined;
  if (authorization !== undefined) throttle.failed(source);
  return { cause: 'unauthorized', headers: { 'www-authenticate': 'Bearer' } };
}

/** A refused token; an address past its wrong tokens counts for the limit `token_failures`. */
function refuseToken(
  front: TokenFront,
  res: ServerResponse,
  refusal: { readonly cause: RefusalCause; readonly headers: ExtraHeaders },
  cors: ExtraHeaders,
): void {
  if (refusal.cause === 'too_many_token_failures') front.config.refused?.('token_failures');
  refuse(res, refusal.cause, { ...cors, ...refusal.headers });
}

/** Whether the token step let the request through; a refusal is already sent when not. */
export function tokenPasses(
  front: TokenFront,
  req: IncomingMessage,
  res: ServerResponse,
  cors: ExtraHeaders,
): boolean {
  if (front.tokenDigest === undefined) return true;
  const refusal = checkToken(req, front.tokenDigest, front.throttle);
  if (refusal === undefined) return true;
  refuseToken(front, res, refusal, cors);
  return false;
}
