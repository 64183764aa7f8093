/**
 * Authorization server metadata (RFC 8414 and OpenID Connect Discovery, docs/sign-in.md#sign-in-server-metadata
 * ): the well-known URLs in the order of the specification; the first document that answers
 * must name exactly the issuer that was asked for (simple string comparison, no normalisation),
 * must offer PKCE with S256, and all its endpoints must be sign-in URLs.
 */
import type { ServerMetadata } from 'openid-client';
import { BridgeError } from '../protocol/bridgeError.js';
import { checkEndpoint, serverMetadataUrls } from './endpoints.js';
import { getJson } from './http.js';
import type { Fetch } from './http.js';

const failed = (detail: string): BridgeError => new BridgeError('sign_in_failed', { detail });

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const;

/** Checks a document against the issuer that was asked for; returns why it cannot be used. */
export function checkServerMetadata(
  body: Record<string, unknown>,
  issuer: string,
  mcpUrl: string,
): string | undefined {
  if (body['issuer'] !== issuer) return 'the authorization server metadata names another issuer';
  const methods = body['code_challenge_methods_supported'];
  if (!Array.isArray(methods) || !methods.includes('S256')) {
    return 'the authorization server does not offer PKCE with S256';
  }
  for (const name of ENDPOINTS) {
    if (name === 'registration_endpoint' && body[name] === undefined) continue;
    const check = checkEndpoint(body[name], mcpUrl);
    if (!check.ok)
      return `the ${name.replace('_', ' ')} of the authorization server is not usable: ${check.reason}`;
  }
  return undefined;
}

/** The checked metadata, and where it was found (dynamic registration reads it there again). */
export interface FoundServer {
  readonly metadata: ServerMetadata;
  readonly metadataUrl: string;
}

export async function discoverServer(input: {
  readonly fetch: Fetch;
  readonly issuer: string;
  /** The MCP URL: loopback http endpoints only for a loopback one (endpoints.ts). */
  readonly mcpUrl: string;
  readonly signal: AbortSignal;
}): Promise<FoundServer> {
  const issuerCheck = checkEndpoint(input.issuer, input.mcpUrl);
  if (!issuerCheck.ok)
    throw failed(`the issuer of the authorization server is not usable: ${issuerCheck.reason}`);
  if (issuerCheck.url.search !== '') throw failed('the issuer of the authorization server has a query');
  for (const url of serverMetadataUrls(input.issuer)) {
    const got = await getJson(input.fetch, url, input.signal, input.mcpUrl);
    if (!got.ok) continue;
    const why = checkServerMetadata(got.body, input.issuer, input.mcpUrl);
    if (why !== undefined) throw failed(why);
    return { metadata: got.body as unknown as ServerMetadata, metadataUrl: url };
  }
  throw failed('the authorization server has no metadata');
}
