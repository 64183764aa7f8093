/**
 * Protected resource metadata (RFC 9728, docs/sign-in.md#sign-in-discovery): from the `resource_metadata`
 * URL of the challenge, then the path-specific well-known URL, then the root one. The first
 * document that answers decides: its `resource` must be the MCP URL (else the sign-in stops and
 * no token is ever sent for that resource), and it must name an authorization server.
 */
import { BridgeError } from '../protocol/bridgeError.js';
import { checkEndpoint, protectedResourceUrls, resourceMatches } from './endpoints.js';
import { getJson } from './http.js';
import type { Fetch } from './http.js';

export interface ResourceMetadata {
  /** As the document publishes it: the resource indicator of every request (RFC 8707). */
  readonly resource: string;
  /** The first `authorization_servers` entry (RFC 9728 §7.6: the client chooses). */
  readonly issuer: string;
  readonly scopesSupported?: readonly string[];
}

export interface ResourceDiscovery {
  readonly fetch: Fetch;
  /** The MCP URL; it never appears in an error or a log line. */
  readonly mcpUrl: string;
  /** The `resource_metadata` parameter of the challenge, when there was one. */
  readonly headerUrl?: string;
  readonly signal: AbortSignal;
}

const failed = (detail: string): BridgeError => new BridgeError('sign_in_failed', { detail });

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((item): item is string => typeof item === 'string') ? value : undefined;

/** The candidate URLs in order, without repeats; a header URL that is not a sign-in URL is skipped. */
export function resourceMetadataUrls(mcpUrl: string, headerUrl: string | undefined): string[] {
  const header = headerUrl !== undefined && checkEndpoint(headerUrl, mcpUrl).ok ? [headerUrl] : [];
  return [...new Set([...header, ...protectedResourceUrls(mcpUrl)])];
}

export async function discoverResource(input: ResourceDiscovery): Promise<ResourceMetadata> {
  for (const url of resourceMetadataUrls(input.mcpUrl, input.headerUrl)) {
    const got = await getJson(input.fetch, url, input.signal, input.mcpUrl);
    if (!got.ok) continue;
    const { resource, authorization_servers: servers, scopes_supported: scopes } = got.body;
    // RFC 9728 §3.3: metadata of another resource is never used, nor a later document tried.
    if (!resourceMatches(resource, input.mcpUrl) || typeof resource !== 'string') {
      throw failed('the protected resource metadata names another resource than the URL of the server');
    }
    const issuer = strings(servers)?.[0];
    if (issuer === undefined) throw failed('the protected resource metadata names no authorization server');
    const scopesSupported = strings(scopes);
    return scopesSupported === undefined ? { resource, issuer } : { resource, issuer, scopesSupported };
  }
  throw failed('the upstream server has no protected resource metadata');
}
