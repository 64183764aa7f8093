/**
 * What an interactive sign-in works with (docs/sign-in.md#sign-in-consent,
 * docs/sign-in.md#sign-in-browser): its settings from the command line and the profile, the ports
 * it talks through, the state that outlives one sign-in, and the input of one sign-in.
 */
import type * as client from 'openid-client';
import type { Logger } from '../ports/logger.js';
import type { openBrowser } from './browser.js';
import type { AuthorizationRequest } from './flow.js';
import type { RedirectResult, startReceiver } from './receiver.js';
import type { TokenResponse } from './tokens.js';
import type { ConsentPort } from '../ports/signIn.js';

/** The scope of the sign-in's log lines. */
export const SCOPE = 'oauth';
/**
 * After a declined or dismissed URL elicitation, an accepted one whose sign-in then failed, or a
 * failed sign-in in the browser after `initialized`, no new sign-in through the client for this
 * long (docs/sign-in.md#sign-in-consent, docs/security.md#security-4).
 */
export const DECLINE_COOLDOWN_MS = 60_000;
export const CONSENT_MESSAGE =
  'The upstream server needs a new sign-in. Open the URL and sign in at the authorization server.';

export interface InteractiveDeps {
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
  readonly consent: ConsentPort;
  readonly now: () => number;
  readonly startReceiver: typeof startReceiver;
  readonly openBrowser: typeof openBrowser;
  readonly writeSignInLine: (authorizationUrl: string) => void;
}

export interface InteractiveSettings {
  readonly redirectPort: number;
  readonly noBrowser: boolean;
  readonly signInTimeoutMs: number;
  readonly sandbox: boolean;
  readonly secretVariables: readonly string[];
  /**
   * After `notifications/initialized`, a client without URL elicitation gets the browser (true:
   * the `mcp-bridge` profile) or `no_consent` (false or absent: the reference rule).
   */
  readonly browserWithoutUrlElicitation?: boolean;
}

/**
 * State that outlives one sign-in: the cooldown (docs/sign-in.md#sign-in-consent,
 * docs/security.md#security-4), and the elicitation counter.
 */
export interface InteractiveState {
  cooldownUntil: number;
  elicitations: number;
}

export interface InteractiveInput {
  /** Makes the openid-client configuration once the redirect URI is known (it may register a client). */
  readonly prepare: (redirectUri: string) => Promise<client.Configuration>;
  /** The MCP URL: a loopback http authorization URL only for a loopback one. */
  readonly mcpUrl: string;
  /** The resource indicator; undefined at an IdP (docs/sign-in.md#sign-in-idp-session). */
  readonly resource: string | undefined;
  readonly scope: string | undefined;
  /** An OpenID Connect sign-in: the authorization request carries a `nonce`. */
  readonly nonce?: boolean;
  /**
   * The code exchange and the checks of its response; default: flow.ts exchangeCode. The IdP
   * session brings its own, which validates the ID token (idp/idpSignIn.ts).
   */
  readonly exchange?: (
    config: client.Configuration,
    redirect: RedirectResult,
    request: AuthorizationRequest,
  ) => Promise<TokenResponse>;
  /** Ends the sign-in: the request stopped, or the sign-in lock was lost (a LockLostError). */
  readonly signal: AbortSignal;
  /**
   * Resolves while the sign-in lock is still this holder's (LockHold.confirm); awaited right
   * before the receiver starts and again before the sign-in line is written and the browser
   * opens, so that a holder that stalled and lost the lock shows no second sign-in. Absent: a
   * lock that cannot be lost.
   */
  readonly confirm?: () => Promise<void>;
  /**
   * Asked when the authorization server refuses the client (`invalid_client` or
   * `unauthorized_client` in the redirect or from the token endpoint): true when the caller will
   * start the sign-in again with another client. The sign-in then fails without its failure line
   * and without a cooldown (the caller logs its own line).
   */
  readonly clientRefused?: (code: 'invalid_client' | 'unauthorized_client') => boolean;
}
