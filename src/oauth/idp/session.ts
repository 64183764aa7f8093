/**
 * The ID token of `--grant id-jag` without `--id-token-file` (docs/sign-in.md#sign-in-id-jag): a
 * sign-in of the person at the IdP. This build has none yet, so the grant fails closed, never
 * falling back to a browser sign-in at the MCP server.
 */
import { BridgeError } from '../../protocol/bridgeError.js';
import type { RenewalContext } from '../renewal.js';
import type { IdpMetadata } from './idpMetadata.js';
import type { IdpSettings } from './types.js';

export function idTokenFromSession(
  _ctx: RenewalContext,
  _idp: IdpSettings,
  _metadata: IdpMetadata,
): Promise<string> {
  return Promise.reject(
    new BridgeError('sign_in_failed', {
      detail: 'an IdP browser sign-in needs --id-token-file in this build',
    }),
  );
}
