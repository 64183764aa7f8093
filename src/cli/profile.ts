/**
 * The identity of the `vscode` profile toward authorization servers
 * (docs/sign-in.md#sign-in-registration, docs/sign-in.md#sign-in-stores), as named constants. The values live in one place, the
 * profile's sign-in identity (src/profiles/vscode.ts). The client ID metadata document is the
 * project's `site/vscode/client.json`, published on Pages at {@link CLIENT_METADATA_URL}; it lists
 * only the default redirect URI, so another `--redirect-port` registers dynamically (docs/sign-in.md#sign-in-registration).
 */
import { loopbackRedirectUri } from '../oauth/store/identity.js';
import { vscodeProfile } from '../profiles/vscode.js';

const identity = vscodeProfile.identity;

/** The bridge name of the storage identity and of the log lines. */
export const BRIDGE_NAME = vscodeProfile.name;
/** `client_name` of the metadata document and of a dynamic registration. */
export const CLIENT_NAME = identity.clientName;
/** The keychain service of the token store. */
export const KEYCHAIN_SERVICE = identity.keychainService;
/** The URL of the published `site/vscode/client.json`: its `client_id` is this URL itself. */
export const CLIENT_METADATA_URL = identity.metadataDocumentUrl;
/** The only redirect URI of the metadata document (the default `--redirect-port`). */
export const CLIENT_METADATA_REDIRECT_URI = loopbackRedirectUri(identity.redirectPort);
