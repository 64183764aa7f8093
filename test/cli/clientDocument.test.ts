/**
 * The client ID metadata documents of the project (`site/vscode/client.json` and
 * `site/generic/client.json`; README.md "Sign-in and tokens") and the profiles that name them
 * agree on the URL and the redirect URI: the `client_id` of each document is its own published
 * URL, the profile's default one, and its only redirect URI is the one the receiver forms with
 * the profile's default redirect port. The Pages workflow publishes `site/` at the project's
 * Pages root, so `site/<path>` is served at `https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/<path>`.
 * Both sides are compared with literal values.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_METADATA_REDIRECT_URI, CLIENT_METADATA_URL, CLIENT_NAME } from '../../src/cli/profile.js';
import { loopbackRedirectUri } from '../../src/oauth/store/identity.js';
import { genericProfile } from '../../src/profiles/generic.js';
import type { Profile } from '../../src/profiles/profile.js';
import { vscodeProfile } from '../../src/profiles/vscode.js';

const PAGES_ROOT = 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/';

const read = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new globalThis.URL(`../../${path}`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;

const cases: ReadonlyArray<{
  readonly file: string;
  readonly profile: Profile;
  readonly url: string;
  readonly redirectUri: string;
  readonly clientName: string;
}> = [
  {
    file: 'site/vscode/client.json',
    profile: vscodeProfile,
    url: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json',
    redirectUri: 'http://127.0.0.1:41894/callback',
    clientName: 'mcp-bridge-vscode (mcp-bridge-sdk)',
  },
  {
    file: 'site/generic/client.json',
    profile: genericProfile,
    url: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/generic/client.json',
    redirectUri: 'http://127.0.0.1:41895/callback',
    clientName: 'mcp-bridge (mcp-bridge-sdk)',
  },
];

describe.each(cases)('$file', ({ file, profile, url, redirectUri, clientName }) => {
  const document = read(file);

  it('its client_id is its own published URL, the default URL of the profile', () => {
    expect(document['client_id']).toBe(url);
    expect(profile.identity.metadataDocumentUrl).toBe(url);
    // The Pages workflow serves site/<path> at <Pages root><path>.
    expect(`${PAGES_ROOT}${file.slice('site/'.length)}`).toBe(url);
    expect(
      readFileSync(new globalThis.URL('../../.github/workflows/pages.yml', import.meta.url), 'utf8'),
    ).toMatch(/^ {10}source: site$/m);
  });

  it('lists only the redirect URI the receiver forms with the default redirect port of the profile', () => {
    expect(document['redirect_uris']).toEqual([redirectUri]);
    expect(loopbackRedirectUri(profile.identity.redirectPort)).toBe(redirectUri);
  });

  it('describes a native public client of the authorization code flow with refresh tokens', () => {
    expect(document).toMatchObject({
      client_name: clientName,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    expect(profile.identity.clientName).toBe(clientName);
  });
});

describe('the named constants of the vscode profile', () => {
  it('are the values of its document', () => {
    expect(CLIENT_METADATA_URL).toBe('https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json');
    expect(CLIENT_METADATA_REDIRECT_URI).toBe('http://127.0.0.1:41894/callback');
    expect(CLIENT_NAME).toBe('mcp-bridge-vscode (mcp-bridge-sdk)');
  });
});
