/**
 * The URL shown to the user (RFC 8628 §3.3.1): `verification_uri_complete`
 * when the server gave one (the user code is in it), else `verification_uri`
 * with the user code shown beside it. The device code is never part of it: it
 * is a bearer secret kept in memory only.
 */
export interface VerificationTarget {
  readonly url: string;
  readonly userCode: string;
  /** True when `url` is `verification_uri_complete`: the page shows the code, the user checks it. */
  readonly complete: boolean;
}

export const verificationTarget = (answer: {
  readonly verification_uri: string;
  readonly verification_uri_complete?: string;
  readonly user_code: string;
}): VerificationTarget => ({
  url: answer.verification_uri_complete ?? answer.verification_uri,
  userCode: answer.user_code,
  complete: answer.verification_uri_complete !== undefined,
});
