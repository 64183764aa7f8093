/**
 * Which client the bridge signs in as (docs/sign-in.md#sign-in-registration, docs/sign-in.md#sign-in-registration,
 * docs/sign-in.md#sign-in-registration), in this order:
 * 1. `--client-id` (pre-registered; `--client-issuer` binds it to one issuer, another issuer is
 *    `issuer_not_registered`; the secret of MCP_BRIDGE_CLIENT_SECRET goes only to that issuer
 *    and is never stored);
 * 2. a client ID metadata document, when the server has `client_id_metadata_document_supported`
 *    (the profile's document, which lists only the profile's default redirect port, or
 *    `--client-metadata-url`; `--client-metadata-url none` skips this step). Skipped too once the
 *    server refused the document's client in this process (renewal.ts starts that sign-in again
 *    with a dynamic client), and while the stored record of this issuer holds a dynamic client:
 *    that client is used again rather than a document the server refused before;
 * 3. dynamic client registration (`registration_endpoint`);
 * none of them: `registration_unavailable`. A stored dynamic client is used again only with the
 * issuer it was registered at (docs/sign-in.md#sign-in-registration: never after a migration to another server).
 */
import type { ServerMetadata } from 'openid-client';
import type { Logger } from '../ports/logger.js';
import { BridgeError } from '../protocol/bridgeError.js';
import type { ClientRegistration, TokenRecord } from './store/types.js';
import type { SignInConfig } from './signInConfig.js';

/** The redirect port the project's client metadata document lists (docs/sign-in.md#sign-in-registration). */
export const DEFAULT_REDIRECT_PORT = 41894;

/** The value of `--client-metadata-url` that turns the client ID metadata document off. */
export const NO_METADATA_DOCUMENT = 'none';

/** What the registration order needs of the sign-in's settings (one definition: SignInConfig). */
export type RegistrationConfig = Pick<
  SignInConfig,
  | 'redirectPort'
  | 'clientId'
  | 'clientIssuer'
  | 'clientSecret'
  | 'clientMetadataUrl'
  | 'defaultMetadataUrl'
  | 'defaultMetadataPort'
>;

/** The client to use, or a dynamic registration still to do. */
export type RegistrationChoice =
  | { readonly kind: 'ready'; readonly registration: ClientRegistration; readonly secret?: string }
  | { readonly kind: 'dynamic' };

/**
 * The token endpoint authentication of a pre-registered client with a secret: `client_secret_basic`
 * where the server offers it (RFC 8414 §2: the default when it lists none), else `client_secret_post`.
 */
export function secretMethod(as: ServerMetadata): 'client_secret_basic' | 'client_secret_post' {
  const listed: unknown = as.token_endpoint_auth_methods_supported;
  const methods: unknown[] = Array.isArray(listed) ? listed : ['client_secret_basic'];
  if (methods.includes('client_secret_basic')) return 'client_secret_basic';
  if (methods.includes('client_secret_post')) return 'client_secret_post';
  throw new BridgeError('sign_in_failed', {
    detail: 'the authorization server offers neither client_secret_basic nor client_secret_post',
  });
}

/** An https URL with a path, without user info or fragment (docs/sign-in.md#sign-in-registration). */
export function validMetadataUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      url.protocol === 'https:' &&
      url.pathname !== '/' &&
      url.username === '' &&
      url.password === '' &&
      url.hash === '' &&
      !value.includes('#')
    );
  } catch {
    return false;
  }
}

export function chooseRegistration(input: {
  readonly config: RegistrationConfig;
  readonly as: ServerMetadata;
  /** The stored record, when it was made with this server's issuer. */
  readonly stored: TokenRecord | undefined;
  readonly logger: Logger;
  /** The receiver's redirect URI, for the detail of `registration_unavailable`. */
  readonly redirectUri: string;
  /** The server refused the document's client earlier in this process (skip step 2). */
  readonly documentRefused?: boolean;
}): RegistrationChoice {
  const { config, as, stored } = input;
  // A dynamic client stored for this issuer (usable while the server still registers clients).
  const storedDynamic =
    stored?.issuer === as.issuer &&
    stored.client.source === 'dynamic' &&
    as.registration_endpoint !== undefined;
  if (config.clientId !== undefined) {
    if (config.clientIssuer !== undefined && config.clientIssuer !== as.issuer) {
      throw new BridgeError('issuer_not_registered');
    }
    // The secret only to the issuer it was given for (a secret without --client-issuer is never sent).
    const secret = config.clientIssuer !== undefined ? config.clientSecret : undefined;
    const registration: ClientRegistration = {
      clientId: config.clientId,
      source: 'pre-registered',
      authMethod: secret === undefined ? 'none' : secretMethod(as),
    };
    return secret === undefined ? { kind: 'ready', registration } : { kind: 'ready', registration, secret };
  }
  if (
    as.client_id_metadata_document_supported === true &&
    config.clientMetadataUrl !== NO_METADATA_DOCUMENT &&
    input.documentRefused !== true &&
    !storedDynamic
  ) {
    if (config.clientMetadataUrl !== undefined) {
      if (!validMetadataUrl(config.clientMetadataUrl)) throw new BridgeError('invalid_client_metadata_url');
      return { kind: 'ready', registration: documentClient(config.clientMetadataUrl) };
    }
    const documentPort = config.defaultMetadataPort ?? DEFAULT_REDIRECT_PORT;
    if (config.defaultMetadataUrl !== undefined && config.redirectPort === documentPort) {
      return { kind: 'ready', registration: documentClient(config.defaultMetadataUrl) };
    }
    if (config.defaultMetadataUrl !== undefined)
      input.logger.log(
        'oauth',
        'info',
        `the client metadata document of the bridge has only the redirect port ${documentPort}. ` +
          `With --redirect-port ${config.redirectPort}, the bridge uses dynamic client registration.`,
      );
  }
  if (as.registration_endpoint === undefined) {
    throw new BridgeError('registration_unavailable', { detail: `the redirect URI ${input.redirectUri}` });
  }
  if (storedDynamic && stored !== undefined) {
    const secret = stored.client.clientSecret;
    return secret === undefined
      ? { kind: 'ready', registration: stored.client }
      : { kind: 'ready', registration: stored.client, secret };
  }
  return { kind: 'dynamic' };
}

const documentClient = (url: string): ClientRegistration => ({
  clientId: url,
  source: 'metadata-document',
  authMethod: 'none',
});
