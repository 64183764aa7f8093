/**
 * The client ID metadata document of the project (`site/vscode/client.json`, issue #11 item 3;
 * reference-behaviors.md §6.9) and the constants the bridge uses agree on the URL and the redirect
 * URI. Both sides are compared with literal values.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_METADATA_REDIRECT_URI, CLIENT_METADATA_URL, CLIENT_NAME } from '../../src/cli/profile.js';

const URL = 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json';
const REDIRECT_URI = 'http://127.0.0.1:41894/callback';

const document = JSON.parse(
  readFileSync(new globalThis.URL('../../site/vscode/client.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

describe('site/vscode/client.json', () => {
  it('its client_id is its own published URL, the one the bridge uses', () => {
    expect(document['client_id']).toBe(URL);
    expect(CLIENT_METADATA_URL).toBe(URL);
  });

  it('lists only the default redirect URI, the one the bridge uses', () => {
    expect(document['redirect_uris']).toEqual([REDIRECT_URI]);
    expect(CLIENT_METADATA_REDIRECT_URI).toBe(REDIRECT_URI);
  });

  it('describes a native public client of the authorization code flow with refresh tokens', () => {
    expect(document).toMatchObject({
      client_name: 'mcp-bridge-vscode (mcp-bridge-sdk)',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    expect(CLIENT_NAME).toBe('mcp-bridge-vscode (mcp-bridge-sdk)');
  });
});
