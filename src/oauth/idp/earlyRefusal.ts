/**
 * What fails at once, before any request, for `--grant id-jag` (docs/sign-in.md#sign-in-id-jag-early):
 * with `--id-token-file` nothing (no person, as the other grants without one); without it the ID
 * token may need a browser sign-in at the IdP (docs/sign-in.md#sign-in-idp-session), so the early
 * refusals of the browser sign-in apply (docs/sign-in.md#sign-in-sandbox,
 * docs/sign-in.md#sign-in-consent), unless the stored IdP session gives an ID token without one
 * (a fresh ID token, or a refresh token to spend), as a stored token or refresh token of the server
 * skips them for the browser sign-in (renewUnderLock.ts). The session is read without its lock: a
 * session another process is signing in to at that moment is not waited for.
 */
import type { BridgeError } from '../../protocol/bridgeError.js';
import type { RenewalContext } from '../renewal.js';
import { refuseEarly } from '../signInPath.js';
import { sessionKeyOf, sessionWithoutSignIn } from './session.js';

export async function refuseIdJagEarly(ctx: RenewalContext): Promise<BridgeError | undefined> {
  const idp = ctx.config.idp;
  if (idp === undefined || idp.idTokenFile !== undefined) return undefined;
  if (sessionWithoutSignIn(await ctx.store.read(sessionKeyOf(ctx, idp)), ctx.now())) return undefined;
  return refuseEarly(ctx.settings, ctx.interactiveDeps, ctx.state);
}
