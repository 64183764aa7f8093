/**
 * The IdP of `--grant id-jag` (docs/sign-in.md#sign-in-id-jag): OpenID Connect Discovery with the
 * exact issuer match, `--idp-token-endpoint` without any request, the URL rules of every sign-in URL
 * (docs/sign-in.md#sign-in-urls), and what the authorization server must offer to take an ID-JAG.
 */
import type { ServerMetadata } from 'openid-client';
import { describe, expect, it } from 'vitest';
import { idJagRefusal } from '../../src/oauth/grant/idJag.js';
import { discoverIdp } from '../../src/oauth/idp/idpMetadata.js';
import type { IdpSettings } from '../../src/oauth/idp/types.js';
import type { RenewalContext } from '../../src/oauth/renewal.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';

const MCP = 'https://mcp.example/mcp';
const IDP = 'https://idp.example/tenant';
const WELL_KNOWN = 'https://idp.example/tenant/.well-known/openid-configuration';

/** A renewal context with a fetch that answers `body` at the well-known URL and records the URLs asked. */
function context(body: Record<string, unknown>, mcpUrl = MCP) {
  const asked: string[] = [];
  const fetch: typeof globalThis.fetch = (input) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    asked.push(url);
    const found = url === WELL_KNOWN;
    return Promise.resolve(new Response(found ? JSON.stringify(body) : null, { status: found ? 200 : 404 }));
  };
  const ctx = {
    config: { url: mcpUrl },
    fetch,
    held: { signal: new AbortController().signal },
  } as unknown as RenewalContext;
  return { ctx, asked };
}

const settings = (more: Partial<IdpSettings> = {}): IdpSettings => ({ issuer: IDP, clientId: 'c', ...more });

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => expect.fail('expected a refusal'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BridgeError);
  const { code, detail } = error as BridgeError & { detail?: string };
  return { code, detail };
}

describe('discoverIdp', () => {
  it('reads the OpenID configuration appended to the issuer, and keeps its endpoints', async () => {
    const { ctx, asked } = context({
      issuer: IDP,
      token_endpoint: 'https://idp.example/tenant/token',
      authorization_endpoint: 'https://idp.example/tenant/authorize',
      revocation_endpoint: 'https://idp.example/tenant/revoke',
      jwks_uri: 'https://keys.idp.example/jwks',
    });
    await expect(discoverIdp(ctx, settings())).resolves.toEqual({
      issuer: IDP,
      tokenEndpoint: 'https://idp.example/tenant/token',
      authorizationEndpoint: 'https://idp.example/tenant/authorize',
      revocationEndpoint: 'https://idp.example/tenant/revoke',
      jwksUri: 'https://keys.idp.example/jwks',
    });
    expect(asked).toEqual([WELL_KNOWN]);
  });

  it('with --id-token-file, --idp-token-endpoint wins, without any request', async () => {
    const { ctx, asked } = context({});
    await expect(
      discoverIdp(ctx, settings({ tokenEndpoint: 'https://idp.example/oauth2/token', idTokenFile: '/t/id' })),
    ).resolves.toEqual({ issuer: IDP, tokenEndpoint: 'https://idp.example/oauth2/token' });
    expect(asked).toEqual([]);
  });

  it('refuses a configuration that names another issuer (a trailing slash counts)', async () => {
    const { ctx } = context({ issuer: `${IDP}/`, token_endpoint: 'https://idp.example/tenant/token' });
    expect(await refusal(discoverIdp(ctx, settings()))).toEqual({
      code: 'sign_in_failed',
      detail: 'the OpenID configuration of the IdP names another issuer',
    });
  });

  it('refuses an IdP without a configuration', async () => {
    const { ctx } = context({});
    expect(await refusal(discoverIdp(ctx, settings({ issuer: 'https://idp.example/other' })))).toEqual({
      code: 'sign_in_failed',
      detail: 'the IdP has no OpenID configuration: HTTP status 404',
    });
  });

  it('refuses a token endpoint on a private address for a public MCP URL, before any request to it', async () => {
    const { ctx, asked } = context({ issuer: IDP, token_endpoint: 'https://10.0.0.7/token' });
    expect(await refusal(discoverIdp(ctx, settings()))).toEqual({
      code: 'sign_in_failed',
      detail:
        'the token endpoint of the IdP is not usable: the URL is on a private address, allowed only for an MCP URL on one',
    });
    expect(asked).toEqual([WELL_KNOWN]);
  });

  it('refuses an http issuer and an http token endpoint for a public MCP URL', async () => {
    const { ctx, asked } = context({});
    expect(await refusal(discoverIdp(ctx, settings({ issuer: 'http://idp.example' })))).toEqual({
      code: 'sign_in_failed',
      detail: 'the issuer of the IdP is not usable: the URL is not https',
    });
    expect(
      await refusal(
        discoverIdp(ctx, settings({ tokenEndpoint: 'http://127.0.0.1:9/token', idTokenFile: '/t/id' })),
      ),
    ).toEqual({
      code: 'sign_in_failed',
      detail:
        'the token endpoint of the IdP is not usable: the URL is loopback http, allowed only for a loopback MCP URL',
    });
    expect(asked).toEqual([]);
  });
});

describe('idJagRefusal: what the authorization server must offer', () => {
  const as = (more: Record<string, unknown>): ServerMetadata => ({ issuer: 'https://as.example', ...more });

  it('takes the jwt-bearer grant type, or the ID-JAG grant profile', () => {
    expect(
      idJagRefusal(as({ grant_types_supported: ['urn:ietf:params:oauth:grant-type:jwt-bearer'] })),
    ).toBeUndefined();
    expect(
      idJagRefusal(
        as({
          grant_types_supported: ['authorization_code'],
          authorization_grant_profiles_supported: ['urn:ietf:params:oauth:grant-profile:id-jag'],
        }),
      ),
    ).toBeUndefined();
  });

  it('refuses a server that lists neither, or lists no grant types at all', () => {
    const expected =
      'the authorization server lists neither urn:ietf:params:oauth:grant-type:jwt-bearer in grant_types_supported nor urn:ietf:params:oauth:grant-profile:id-jag in authorization_grant_profiles_supported';
    expect(idJagRefusal(as({ grant_types_supported: ['authorization_code'] }))).toBe(expected);
    expect(idJagRefusal(as({}))).toBe(expected);
  });
});
