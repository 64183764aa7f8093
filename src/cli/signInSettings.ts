/**
 * The settings of the token store and of the sign-in of a URL upstream, in a file of their own
 * (nothing loaded with them): signInSetup.ts starts the sign-in with them, and `doctor`
 * (src/cli/doctor) checks the registration the bridge would use with the very same settings.
 */
import type { SignInConfig } from '../oauth/signInConfig.js';
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
      ...(signIn.grant === undefined ? {} : { grant: signIn.grant }),
      noBrowser: signIn.noBrowser,
      ...(signIn.noDpop ? { dpop: false } : {}),
      ...(signIn.grant === undefined ? {} : { grant: signIn.grant }),
      ...(signIn.clientKeyFile === undefined ? {} : { clientKeyFile: signIn.clientKeyFile }),
      ...(signIn.assertionFile === undefined ? {} : { assertionFile: signIn.assertionFile }),
      ...(signIn.idp === undefined ? {} : { idp: signIn.idp }),
      signInTimeoutMs: signIn.signInTimeoutMs,
      sandbox: signIn.sandbox,
      secretVariables: signIn.secretVariables,
    },
  };
}
