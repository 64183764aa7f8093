/**
 * The URL rules of the sign-in (pure): which endpoints the bridge may talk to, the well-known
 * URLs of RFC 9728 and RFC 8414 in the order of docs/sign-in.md#sign-in-discovery–8.3, and the match of
 * the `resource` of the protected resource metadata with the MCP URL.
 */
import { isLoopbackHost } from '../edges/http/dispatcher.js';
import { CLASS_WORDS, allowedFor, classifyHost } from '../edges/http/hostClass.js';
import type { HostClass } from '../edges/http/hostClass.js';

export type EndpointCheck =
  { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: string };

/** True when the MCP URL's own host is a loopback host (then loopback `http` sign-in URLs pass). */
export function mcpIsLoopback(mcpUrl: string): boolean {
  try {
    return isLoopbackHost(new URL(mcpUrl).hostname);
  } catch {
    return false;
  }
}

/**
 * Why the host of a sign-in URL is refused (undefined: it is not): a literal loopback, link-local
 * or private address, or a localhost name, is allowed only when the MCP URL's own host is of
 * that kind (hostClass.ts allowedFor). An MCP host given by name counts as public here; a name
 * of a sign-in URL is judged by the addresses it resolves to, when the connection is made
 * (src/edges/http/lookup.ts).
 */
function refusedHost(host: string, mcpUrl: string): string | undefined {
  const target = classifyHost(host);
  if (target === 'name' || target === 'public') return undefined;
  let mcp: HostClass = 'name';
  try {
    mcp = classifyHost(new URL(mcpUrl).hostname);
  } catch {
    // An MCP URL that does not parse allows no local address.
  }
  if (allowedFor(mcp === 'name' ? 'public' : mcp, target)) return undefined;
  return `the URL is on ${CLASS_WORDS[target]}, allowed only for an MCP URL on one`;
}

/**
 * Every sign-in URL (metadata, authorization, token and registration endpoints, the issuer) is
 * `https`, or `http` on a loopback host only, and only when the MCP URL itself is on a loopback
 * host (local test servers, in the spirit of RFC 8252; the reference refuses
 * loopback `http`). A remote server, or the authorization server it names, can therefore never
 * aim a sign-in request at a local `http` service. Its host is no loopback, link-local or
 * private address (nor a localhost name) unless the MCP URL's host is one (refusedHost;
 * SECURITY.md): nor at a local `https` service. No user info, no fragment. The reason never holds
 * either URL.
 */
export function checkEndpoint(value: unknown, mcpUrl: string): EndpointCheck {
  if (typeof value !== 'string') return { ok: false, reason: 'the URL is missing' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'the URL is not valid' };
  }
  if (url.protocol !== 'https:') {
    if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname)) {
      return { ok: false, reason: 'the URL is not https' };
    }
    if (!mcpIsLoopback(mcpUrl)) {
      return { ok: false, reason: 'the URL is loopback http, allowed only for a loopback MCP URL' };
    }
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'the URL has user info' };
  if (url.hash !== '' || value.includes('#')) return { ok: false, reason: 'the URL has a fragment' };
  const refused = refusedHost(url.hostname, mcpUrl);
  if (refused !== undefined) return { ok: false, reason: refused };
  return { ok: true, url };
}

/** True when the URL is `http` (then only a loopback one passes {@link checkEndpoint}, for a loopback MCP URL). */
export const isPlainHttp = (value: string): boolean => value.toLowerCase().startsWith('http:');

/**
 * The `resource` of the protected resource metadata must cover the MCP server the bridge talks
 * to (RFC 9728 §3.3 and §7.3, docs/sign-in.md#sign-in-discovery; docs/testing.md#testing-infrastructure:
 * "resource metadata must cover the URL"): the same origin after the canonical form of scheme
 * and host case and the default port (the URL parser does both), and a path that is the MCP
 * URL's path or a whole-segment prefix of it, a terminating slash aside. The prefix is what the
 * root well-known document publishes (RFC 9728 §3.3: its `resource` is the identifier the root
 * URL was built from, the origin); another origin is never covered. The query of the MCP URL is
 * not part of the comparison: it may hold a key the user gave, which a server does not publish.
 * A `resource` with a query is refused (RFC 8707 §2: it SHOULD NOT have one): the resource goes
 * into the authorization URL, the sign-in line and the elicitation, where a key of the MCP URL's
 * query must never appear.
 */
export function resourceMatches(resource: unknown, mcpUrl: string): boolean {
  if (typeof resource !== 'string') return false;
  let published: URL;
  let target: URL;
  try {
    published = new URL(resource);
    target = new URL(mcpUrl);
  } catch {
    return false;
  }
  if (published.hash !== '' || published.username !== '' || published.password !== '') return false;
  if (published.origin !== target.origin) return false;
  if (published.search !== '' || resource.includes('?')) return false;
  const path = published.pathname.replace(/\/$/, '');
  const targetPath = target.pathname.replace(/\/$/, '');
  return targetPath === path || targetPath.startsWith(`${path}/`);
}

/**
 * RFC 9728 §3.1 well-known URLs of the MCP URL, in the order of docs/sign-in.md#sign-in-discovery: the
 * path-specific one (`/.well-known/oauth-protected-resource/<path>`), then the root one. The
 * query of the MCP URL is dropped (as the MCP specification's examples do): it may hold a key.
 */
export function protectedResourceUrls(mcpUrl: string): string[] {
  const url = new URL(mcpUrl);
  const root = `${url.origin}/.well-known/oauth-protected-resource`;
  const path = url.pathname.replace(/\/$/, '');
  return path === '' ? [root] : [`${root}${path}`, root];
}

/**
 * The authorization server metadata URLs of an issuer, in the order of docs/sign-in.md#sign-in-server-metadata:
 * RFC 8414 path-inserted, OpenID path-inserted, OpenID appended (the last only with a path).
 */
export function serverMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const oauth = `${url.origin}/.well-known/oauth-authorization-server${path}`;
  const oidc = `${url.origin}/.well-known/openid-configuration${path}`;
  return path === '' ? [oauth, oidc] : [oauth, oidc, `${url.origin}${path}/.well-known/openid-configuration`];
}
