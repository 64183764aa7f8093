/**
 * The sign-in of the URL form, made once per process (issues #11 and #12): the token store
 * (reference-behaviors.md §6.11: a forced store that does not open is exit code 2), the fetch of
 * the sign-in through the upstream's trust and proxy settings (§6.3), the consent relay that each
 * client connection binds (§6.7), and the UpstreamAuth that the HTTP upstream calls. Loaded only
 * for a URL with the sign-in on: the command form never pays for openid-client or the stores.
 */
import type { ConsentRelay } from '../bridge/consent.js';
import { createConsentRelay } from '../bridge/consent.js';
import type { Logger } from '../bridge/log.js';
import { createSignInFetch } from '../edges/http/signInFetch.js';
import { createUpstreamAuth } from '../oauth/upstreamAuth.js';
import type { UpstreamAuth } from '../oauth/upstreamAuth.js';
import { openTokenStore } from '../oauth/store/openStore.js';
import { BRIDGE_NAME, CLIENT_METADATA_URL, CLIENT_NAME, KEYCHAIN_SERVICE } from './profile.js';
import type { SignInOptions } from './signInArgs.js';

export interface SignInSetupInput {
  readonly url: string;
  readonly signIn: SignInOptions;
  readonly caPem?: string;
  readonly env: NodeJS.ProcessEnv;
}

export type SignInSetup =
  | {
      readonly ok: true;
      readonly auth: UpstreamAuth;
      readonly consent: ConsentRelay;
      /** Releases what the sign-in holds (dispatchers); the process ends after it. */
      readonly close: () => void;
    }
  /** `message`: the diagnostic of exit code 2 (`the token store did not open: <cause>`). */
  | { readonly ok: false; readonly message: string };

export async function setUpSignIn(input: SignInSetupInput, logger: Logger): Promise<SignInSetup> {
  const { signIn, env } = input;
  const opened = await openTokenStore(
    {
      tokenStore: signIn.tokenStore,
      ...(signIn.tokenKey === undefined ? {} : { tokenKey: signIn.tokenKey }),
      ...(signIn.tokenKeyFile === undefined ? {} : { tokenKeyFile: signIn.tokenKeyFile }),
      env,
      service: KEYCHAIN_SERVICE,
    },
    logger,
  );
  if (!opened.ok) return { ok: false, message: opened.message };
  const signInFetch = createSignInFetch(input.caPem === undefined ? { env } : { env, caPem: input.caPem });
  const consent = createConsentRelay();
  const auth = createUpstreamAuth(
    {
      url: input.url,
      bridgeName: BRIDGE_NAME,
      clientName: CLIENT_NAME,
      redirectPort: signIn.redirectPort,
      account: signIn.account,
      ...(signIn.clientId === undefined ? {} : { clientId: signIn.clientId }),
      ...(signIn.clientIssuer === undefined ? {} : { clientIssuer: signIn.clientIssuer }),
      ...(signIn.clientSecret === undefined ? {} : { clientSecret: signIn.clientSecret }),
      ...(signIn.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: signIn.clientMetadataUrl }),
      defaultMetadataUrl: CLIENT_METADATA_URL,
      noBrowser: signIn.noBrowser,
      signInTimeoutMs: signIn.signInTimeoutMs,
      sandbox: signIn.sandbox,
      secretVariables: signIn.secretVariables,
    },
    { fetch: signInFetch.fetch, store: opened.store, lock: opened.lock, logger, env, consent: consent.port },
  );
  // A stored sign-in is read before the first request, so that it needs no 401 round trip.
  await auth.load();
  return { ok: true, auth, consent, close: () => signInFetch.close() };
}
