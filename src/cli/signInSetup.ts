/**
 * The sign-in of the URL form, made once per process (docs/sign-in.md#sign-in-trigger): the token store
 * (docs/sign-in.md#sign-in-stores: a forced store that does not open is exit code 2), the fetch of
 * the sign-in through the upstream's trust and proxy settings (docs/http-upstream.md#http-client), the consent relay that each
 * client connection binds (docs/sign-in.md#sign-in-consent), and the UpstreamAuth that the HTTP upstream calls. Loaded only
 * for a URL with the sign-in on: the command form never pays for openid-client or the stores.
 */
import { createConsentRelay } from '../bridge/consent.js';
import type { Logger } from '../ports/logger.js';
import { createSignInFetch } from '../edges/http/signInFetch.js';
import { createUpstreamAuth } from '../oauth/upstreamAuth.js';
import type { ConsentRelay, UpstreamAuth } from '../ports/signIn.js';
import type { SignInConfig } from '../oauth/signInConfig.js';
import { openTokenStore } from '../oauth/store/openStore.js';
import { storeLogger } from '../oauth/store/record.js';
import type { StoreOptions } from '../oauth/store/openStore.js';
import type { Profile } from '../profiles/profile.js';
import type { SignInOptions } from './signInArgs.js';

export interface SignInSetupInput {
  readonly url: string;
  readonly signIn: SignInOptions;
  readonly caPem?: string;
  readonly env: NodeJS.ProcessEnv;
  /** The executable's profile: its name and sign-in identity (docs/architecture.md#architecture-profile). */
  readonly profile: Profile;
}

/**
 * The settings of the token store and of the sign-in, from the options and the profile's
 * sign-in identity (docs/architecture.md#architecture-profile, docs/sign-in.md#sign-in-registration, docs/sign-in.md#sign-in-stores): its name is the bridge name of
 * the storage identity, its keychain service and token directory hold the tokens and the lock,
 * its client name and metadata document are what the authorization server sees.
 */
export function signInSettings(input: SignInSetupInput): {
  readonly store: StoreOptions;
  readonly auth: SignInConfig;
} {
  const { signIn, env, profile } = input;
  const identity = profile.identity;
  return {
    store: {
      tokenStore: signIn.tokenStore,
      ...(signIn.tokenKey === undefined ? {} : { tokenKey: signIn.tokenKey }),
      ...(signIn.tokenKeyFile === undefined ? {} : { tokenKeyFile: signIn.tokenKeyFile }),
      env,
      service: identity.keychainService,
      tokenDirectory: identity.tokenDirectory,
    },
    auth: {
      url: input.url,
      bridgeName: profile.name,
      clientName: identity.clientName,
      redirectPort: signIn.redirectPort,
      account: signIn.account,
      ...(signIn.clientId === undefined ? {} : { clientId: signIn.clientId }),
      ...(signIn.clientIssuer === undefined ? {} : { clientIssuer: signIn.clientIssuer }),
      ...(signIn.clientSecret === undefined ? {} : { clientSecret: signIn.clientSecret }),
      ...(signIn.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: signIn.clientMetadataUrl }),
      ...(identity.metadataDocumentUrl === undefined
        ? {}
        : { defaultMetadataUrl: identity.metadataDocumentUrl }),
      defaultMetadataPort: identity.redirectPort,
      browserWithoutUrlElicitation: identity.browserWithoutUrlElicitation,
      noBrowser: signIn.noBrowser,
      signInTimeoutMs: signIn.signInTimeoutMs,
      sandbox: signIn.sandbox,
      secretVariables: signIn.secretVariables,
    },
  };
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
  const { env } = input;
  const settings = signInSettings(input);
  const opened = await openTokenStore(settings.store, storeLogger(logger, input.profile.logScope));
  if (!opened.ok) return { ok: false, message: opened.message };
  const signInFetch = createSignInFetch(
    input.caPem === undefined ? { env, mcpUrl: input.url } : { env, caPem: input.caPem, mcpUrl: input.url },
  );
  const consent = createConsentRelay({
    browserWithoutUrlElicitation: input.profile.identity.browserWithoutUrlElicitation,
  });
  const auth = createUpstreamAuth(settings.auth, {
    fetch: signInFetch.fetch,
    store: opened.store,
    lock: opened.lock,
    logger,
    env,
    consent: consent.port,
  });
  // A stored sign-in is read before the first request, so that it needs no 401 round trip.
  await auth.load();
  return { ok: true, auth, consent, close: () => signInFetch.close() };
}
