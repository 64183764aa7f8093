import { describe, expect, it } from 'vitest';
import type { ServerMetadata } from 'openid-client';
import { chooseRegistration, validMetadataUrl } from '../../src/oauth/registration.js';
import type { RegistrationConfig } from '../../src/oauth/registration.js';
import type { TokenRecord } from '../../src/oauth/store/types.js';
import type { LogLevel } from '../../src/ports/logger.js';

const ISSUER = 'https://as.example';
const server = (extra: Partial<ServerMetadata> = {}): ServerMetadata => ({
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/auth`,
  token_endpoint: `${ISSUER}/token`,
  code_challenge_methods_supported: ['S256'],
  ...extra,
});
const base: RegistrationConfig = {
  redirectPort: 41894,
  defaultMetadataUrl: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json',
};
const REDIRECT = 'http://127.0.0.1:41894/callback';

function choose(config: Partial<RegistrationConfig>, as: ServerMetadata, stored?: TokenRecord) {
  const lines: Array<[LogLevel, string]> = [];
  const choice = chooseRegistration({
    config: { ...base, ...config },
    as,
    stored,
    redirectUri: REDIRECT,
    logger: { log: (_scope, level, text) => void lines.push([level, text]), enabled: () => true },
  });
  return { choice, lines };
}

const record = (issuer: string, source: 'dynamic' | 'pre-registered' | 'metadata-document'): TokenRecord => ({
  version: 1,
  url: 'https://mcp.example/mcp',
  identity: 'mcp-bridge-vscode|default|http://127.0.0.1:41894/callback',
  issuer,
  resource: 'https://mcp.example/mcp',
  client: { clientId: 'stored-client', source, authMethod: 'none' },
  accessToken: 'at',
  tokenType: 'Bearer',
  savedAt: 1,
});

describe('chooseRegistration (docs/sign-in.md#sign-in-registration, protocol-mapping docs/cli.md#cli-forms)', () => {
  it('1. a pre-registered client comes first, even where documents and registration exist', () => {
    const as = server({
      client_id_metadata_document_supported: true,
      registration_endpoint: `${ISSUER}/reg`,
    });
    expect(choose({ clientId: 'mine' }, as).choice).toEqual({
      kind: 'ready',
      registration: { clientId: 'mine', source: 'pre-registered', authMethod: 'none' },
    });
  });

  it('sends the secret to the issuer of --client-issuer only, by basic where offered, else post', () => {
    const secret = { clientId: 'mine', clientIssuer: ISSUER, clientSecret: 's3cret' };
    expect(choose(secret, server()).choice).toEqual({
      kind: 'ready',
      registration: { clientId: 'mine', source: 'pre-registered', authMethod: 'client_secret_basic' },
      secret: 's3cret',
    });
    expect(
      choose(secret, server({ token_endpoint_auth_methods_supported: ['client_secret_post'] })).choice,
    ).toEqual({
      kind: 'ready',
      registration: { clientId: 'mine', source: 'pre-registered', authMethod: 'client_secret_post' },
      secret: 's3cret',
    });
    expect(() =>
      choose(secret, server({ token_endpoint_auth_methods_supported: ['private_key_jwt'] })),
    ).toThrow(
      'sign_in_failed: the authorization server offers neither client_secret_basic nor client_secret_post',
    );
    expect(choose({ clientId: 'mine', clientSecret: 's3cret' }, server()).choice).toEqual({
      kind: 'ready',
      registration: { clientId: 'mine', source: 'pre-registered', authMethod: 'none' },
    });
  });

  it('is issuer_not_registered for another issuer, compared exactly', () => {
    expect(() => choose({ clientId: 'mine', clientIssuer: `${ISSUER}/` }, server())).toThrow(
      'issuer_not_registered',
    );
  });

  it('2. the project document with the default port, where the server supports documents', () => {
    const as = server({
      client_id_metadata_document_supported: true,
      registration_endpoint: `${ISSUER}/reg`,
    });
    expect(choose({}, as).choice).toEqual({
      kind: 'ready',
      registration: {
        clientId: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json',
        source: 'metadata-document',
        authMethod: 'none',
      },
    });
    expect(choose({ clientMetadataUrl: 'https://me.example/c.json', redirectPort: 5000 }, as).choice).toEqual(
      {
        kind: 'ready',
        registration: {
          clientId: 'https://me.example/c.json',
          source: 'metadata-document',
          authMethod: 'none',
        },
      },
    );
  });

  it('3. dynamic registration with another port, with the info line', () => {
    const as = server({
      client_id_metadata_document_supported: true,
      registration_endpoint: `${ISSUER}/reg`,
    });
    expect(choose({ redirectPort: 5000 }, as)).toEqual({
      choice: { kind: 'dynamic' },
      lines: [
        [
          'info',
          'the client metadata document of the bridge has only the redirect port 41894. With --redirect-port 5000, the bridge uses dynamic client registration.',
        ],
      ],
    });
  });

  it('3. dynamic registration where documents are not supported, without a line', () => {
    expect(choose({}, server({ registration_endpoint: `${ISSUER}/reg` }))).toEqual({
      choice: { kind: 'dynamic' },
      lines: [],
    });
  });

  it('uses a stored dynamic client of the same issuer again, never one of another issuer', () => {
    const as = server({ registration_endpoint: `${ISSUER}/reg` });
    expect(choose({}, as, record(ISSUER, 'dynamic')).choice).toEqual({
      kind: 'ready',
      registration: { clientId: 'stored-client', source: 'dynamic', authMethod: 'none' },
    });
    expect(choose({}, as, record('https://old.example', 'dynamic')).choice).toEqual({ kind: 'dynamic' });
  });

  it('skips the document for --client-metadata-url none, a refused document, or a stored dynamic client', () => {
    const as = server({
      client_id_metadata_document_supported: true,
      registration_endpoint: `${ISSUER}/reg`,
    });
    expect(choose({ clientMetadataUrl: 'none' }, as)).toEqual({ choice: { kind: 'dynamic' }, lines: [] });
    const refused = chooseRegistration({
      config: base,
      as,
      stored: undefined,
      redirectUri: REDIRECT,
      logger: { log: () => undefined, enabled: () => true },
      documentRefused: true,
    });
    expect(refused).toEqual({ kind: 'dynamic' });
    expect(choose({}, as, record(ISSUER, 'dynamic')).choice).toEqual({
      kind: 'ready',
      registration: { clientId: 'stored-client', source: 'dynamic', authMethod: 'none' },
    });
    // A stored document client keeps the document; a server without registration keeps it too.
    expect(choose({}, as, record(ISSUER, 'metadata-document')).choice).toMatchObject({
      registration: { source: 'metadata-document' },
    });
    expect(
      choose({}, server({ client_id_metadata_document_supported: true }), record(ISSUER, 'dynamic')).choice,
    ).toMatchObject({ registration: { source: 'metadata-document' } });
  });

  it('is registration_unavailable with the redirect URI as detail', () => {
    expect(() =>
      choose({ redirectPort: 5000 }, server({ client_id_metadata_document_supported: true })),
    ).toThrow('registration_unavailable: the redirect URI http://127.0.0.1:41894/callback');
    expect(() => choose({}, server())).toThrow('registration_unavailable');
  });

  it('is invalid_client_metadata_url for a document URL that is not https with a path', () => {
    const as = server({ client_id_metadata_document_supported: true });
    expect(() => choose({ clientMetadataUrl: 'http://me.example/c.json' }, as)).toThrow(
      'invalid_client_metadata_url',
    );
  });
});

describe('validMetadataUrl', () => {
  it('takes https URLs with a path only', () => {
    expect(validMetadataUrl('https://me.example/c.json')).toBe(true);
    expect(validMetadataUrl('https://me.example/')).toBe(false);
    expect(validMetadataUrl('https://me.example')).toBe(false);
    expect(validMetadataUrl('http://me.example/c.json')).toBe(false);
    expect(validMetadataUrl('https://u:p@me.example/c.json')).toBe(false);
    expect(validMetadataUrl('https://me.example/c.json#x')).toBe(false);
    expect(validMetadataUrl('https://me.example/c.json#')).toBe(false);
    expect(validMetadataUrl('not a url')).toBe(false);
  });
});
