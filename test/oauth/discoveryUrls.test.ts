import { describe, expect, it } from 'vitest';
import {
  checkEndpoint,
  protectedResourceUrls,
  resourceMatches,
  serverMetadataUrls,
} from '../../src/oauth/endpoints.js';
import { resourceMetadataUrls } from '../../src/oauth/resourceMetadata.js';
import { needsInsecure } from '../../src/oauth/flow.js';

/** MCP URLs on a loopback host and on a remote one (loopback http only for the first). */
const LOCAL_MCP = 'https://127.0.0.1:8443/mcp?key=secret-k';
const REMOTE_MCP = 'https://mcp.example/mcp?key=secret-k';
const LOOPBACK_HTTP = 'the URL is loopback http, allowed only for a loopback MCP URL';

describe('protected resource metadata URLs (RFC 9728, protocol-mapping §8.2)', () => {
  it('tries the path-specific URL, then the root one', () => {
    expect(protectedResourceUrls('https://host.example/public/mcp')).toEqual([
      'https://host.example/.well-known/oauth-protected-resource/public/mcp',
      'https://host.example/.well-known/oauth-protected-resource',
    ]);
  });

  it('has only the root URL for a URL without a path, and drops the query', () => {
    expect(protectedResourceUrls('https://host.example/')).toEqual([
      'https://host.example/.well-known/oauth-protected-resource',
    ]);
    expect(protectedResourceUrls('https://host.example:8443/mcp/?key=secret-k')).toEqual([
      'https://host.example:8443/.well-known/oauth-protected-resource/mcp',
      'https://host.example:8443/.well-known/oauth-protected-resource',
    ]);
  });

  it('puts the resource_metadata of the challenge first, once', () => {
    expect(
      resourceMetadataUrls('https://h.example/mcp', 'https://h.example/.well-known/oauth-protected-resource'),
    ).toEqual([
      'https://h.example/.well-known/oauth-protected-resource',
      'https://h.example/.well-known/oauth-protected-resource/mcp',
    ]);
    expect(resourceMetadataUrls('https://h.example/mcp', 'https://other.example/prm')).toEqual([
      'https://other.example/prm',
      'https://h.example/.well-known/oauth-protected-resource/mcp',
      'https://h.example/.well-known/oauth-protected-resource',
    ]);
  });

  it('skips a resource_metadata URL that is not a sign-in URL', () => {
    expect(resourceMetadataUrls('https://h.example/mcp', 'http://evil.example/prm')).toEqual([
      'https://h.example/.well-known/oauth-protected-resource/mcp',
      'https://h.example/.well-known/oauth-protected-resource',
    ]);
  });
});

describe('authorization server metadata URLs (protocol-mapping §8.3)', () => {
  it('with a path: RFC 8414 inserted, OpenID inserted, OpenID appended', () => {
    expect(serverMetadataUrls('https://auth.example.com/tenant1')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ]);
  });

  it('without a path: RFC 8414, then OpenID', () => {
    expect(serverMetadataUrls('https://auth.example.com')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
    expect(serverMetadataUrls('http://127.0.0.1:4444/')).toEqual([
      'http://127.0.0.1:4444/.well-known/oauth-authorization-server',
      'http://127.0.0.1:4444/.well-known/openid-configuration',
    ]);
  });
});

describe('resourceMatches', () => {
  it('matches after the canonical form of scheme and host case, default port and a final slash', () => {
    expect(resourceMatches('HTTPS://Host.Example:443/mcp', 'https://host.example/mcp')).toBe(true);
    expect(resourceMatches('https://host.example/mcp/', 'https://host.example/mcp')).toBe(true);
    expect(resourceMatches('https://host.example', 'https://host.example/')).toBe(true);
  });

  // RFC 8707 §2: a resource SHOULD NOT have a query; one that repeats the MCP URL's would carry its
  // key into the authorization URL, the sign-in line and the elicitation.
  it('ignores the query of the MCP URL, and refuses a resource with any query', () => {
    expect(resourceMatches('https://h.example/mcp', 'https://h.example/mcp?key=k1')).toBe(true);
    expect(resourceMatches('https://h.example/mcp?key=k1', 'https://h.example/mcp?key=k1')).toBe(false);
    expect(resourceMatches('https://h.example/mcp?key=k2', 'https://h.example/mcp?key=k1')).toBe(false);
    expect(resourceMatches('https://h.example/mcp?', 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches('https://h.example/mcp?x=1', 'https://h.example/mcp')).toBe(false);
  });

  it('refuses another host, port, scheme, path, or case of the path', () => {
    expect(resourceMatches('https://other.example/mcp', 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches('https://h.example:8443/mcp', 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches('http://h.example/mcp', 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches('https://h.example/MCP', 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches('https://other.example', 'https://h.example/mcp')).toBe(false);
  });

  // RFC 9728 §3.3: the root document's resource is the origin it was built from; the reference
  // takes metadata whose resource "covers the URL" (docs/testing.md#testing-infrastructure).
  it('takes a resource that covers the URL: the origin, or a whole-segment prefix of the path', () => {
    expect(resourceMatches('https://h.example', 'https://h.example/mcp')).toBe(true);
    expect(resourceMatches('https://h.example/', 'https://h.example/mcp')).toBe(true);
    expect(resourceMatches('https://h.example/api', 'https://h.example/api/v1/mcp')).toBe(true);
    expect(resourceMatches('https://h.example/api/', 'https://h.example/api/mcp?key=k1')).toBe(true);
  });

  it('refuses a prefix that is not a whole segment, a longer path, or a query with another path', () => {
    expect(resourceMatches('https://h.example/mc', 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches('https://h.example/api', 'https://h.example/apix/mcp')).toBe(false);
    expect(resourceMatches('https://h.example/mcp/x', 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches('https://h.example/?key=k1', 'https://h.example/mcp?key=k1')).toBe(false);
  });

  it('refuses a resource that is no string, no URL, or has a fragment or user info', () => {
    expect(resourceMatches(undefined, 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches(['https://h.example/mcp'], 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches('h.example/mcp', 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches('https://h.example/mcp#f', 'https://h.example/mcp')).toBe(false);
    expect(resourceMatches('https://u@h.example/mcp', 'https://h.example/mcp')).toBe(false);
  });
});

describe('checkEndpoint', () => {
  it('with a remote MCP URL refuses loopback http (the reason holds no URL) and takes https', () => {
    for (const endpoint of [
      'http://127.0.0.1:9/token',
      'http://localhost:9/token',
      'http://[::1]:9/token',
      'http://a.localhost/prm',
    ]) {
      expect(checkEndpoint(endpoint, REMOTE_MCP)).toEqual({ ok: false, reason: LOOPBACK_HTTP });
    }
    expect(checkEndpoint('http://as.example/token', REMOTE_MCP)).toEqual({
      ok: false,
      reason: 'the URL is not https',
    });
    expect(checkEndpoint('https://as.example/token', REMOTE_MCP).ok).toBe(true);
    expect(checkEndpoint('http://127.0.0.1:9/token', 'http://localhost:3000/mcp').ok).toBe(true);
    expect(checkEndpoint('http://127.0.0.1:9/token', 'not a url')).toEqual({
      ok: false,
      reason: LOOPBACK_HTTP,
    });
  });

  it('with a remote MCP URL refuses https to a literal loopback, link-local or private address', () => {
    const refusal = (kind: string) => ({
      ok: false,
      reason: `the URL is on ${kind}, allowed only for an MCP URL on one`,
    });
    for (const endpoint of [
      'https://127.0.0.1:9/token',
      'https://127.1.2.3/token',
      'https://localhost/token',
      'https://idp.localhost/token',
      'https://[::1]/token',
      'https://0.0.0.0/token',
      'https://[::]/token',
      'https://[::ffff:127.0.0.1]/token',
      'https://0x7f.1/token',
    ]) {
      expect(checkEndpoint(endpoint, REMOTE_MCP)).toEqual(refusal('a loopback address'));
    }
    for (const endpoint of ['https://169.254.169.254/latest/meta-data', 'https://[fe80::1]/token']) {
      expect(checkEndpoint(endpoint, REMOTE_MCP)).toEqual(refusal('a link-local address'));
    }
    for (const endpoint of [
      'https://10.0.0.1/token',
      'https://172.16.0.1/token',
      'https://172.31.255.255/token',
      'https://192.168.1.1/token',
      'https://100.64.0.1/token',
      'https://[fd00::1]/token',
      'https://[::ffff:10.0.0.1]/token',
    ]) {
      expect(checkEndpoint(endpoint, REMOTE_MCP)).toEqual(refusal('a private address'));
    }
    for (const endpoint of [
      'https://172.32.0.1/token',
      'https://100.128.0.1/token',
      'https://8.8.8.8/token',
    ]) {
      expect(checkEndpoint(endpoint, REMOTE_MCP).ok).toBe(true);
    }
    // A name is judged by its addresses when the connection is made (lookup.ts).
    expect(checkEndpoint('https://idp.internal.example/token', REMOTE_MCP).ok).toBe(true);
  });

  it('a private MCP URL allows private addresses, a loopback one every address', () => {
    const privateMcp = 'https://10.1.2.3/mcp';
    expect(checkEndpoint('https://10.9.9.9/token', privateMcp).ok).toBe(true);
    expect(checkEndpoint('https://[fd00::1]/token', privateMcp).ok).toBe(true);
    expect(checkEndpoint('https://127.0.0.1/token', privateMcp)).toEqual({
      ok: false,
      reason: 'the URL is on a loopback address, allowed only for an MCP URL on one',
    });
    expect(checkEndpoint('https://169.254.169.254/token', privateMcp)).toEqual({
      ok: false,
      reason: 'the URL is on a link-local address, allowed only for an MCP URL on one',
    });
    for (const endpoint of ['https://127.0.0.1/token', 'https://10.0.0.1/token', 'https://169.254.1.1/t']) {
      expect(checkEndpoint(endpoint, LOCAL_MCP).ok).toBe(true);
      expect(checkEndpoint(endpoint, 'http://mcp.localhost:3000/mcp').ok).toBe(true);
    }
  });

  it('with a remote MCP URL skips a loopback http resource_metadata URL of the challenge', () => {
    expect(resourceMetadataUrls(REMOTE_MCP, 'http://127.0.0.1:9/prm')).toEqual([
      'https://mcp.example/.well-known/oauth-protected-resource/mcp',
      'https://mcp.example/.well-known/oauth-protected-resource',
    ]);
    expect(resourceMetadataUrls(LOCAL_MCP, 'http://127.0.0.1:9/prm')).toEqual([
      'http://127.0.0.1:9/prm',
      'https://127.0.0.1:8443/.well-known/oauth-protected-resource/mcp',
      'https://127.0.0.1:8443/.well-known/oauth-protected-resource',
    ]);
  });

  it('needsInsecure: openid-client may use loopback http only for a loopback MCP URL', () => {
    const as = {
      issuer: 'http://127.0.0.1:9',
      authorization_endpoint: 'http://127.0.0.1:9/auth',
      token_endpoint: 'http://127.0.0.1:9/token',
    };
    expect(needsInsecure(as, LOCAL_MCP)).toBe(true);
    expect(needsInsecure(as, REMOTE_MCP)).toBe(false);
    expect(needsInsecure({ issuer: 'https://as.example' }, LOCAL_MCP)).toBe(false);
  });

  it('with a loopback MCP URL takes https anywhere and http on loopback hosts only', () => {
    expect(checkEndpoint('https://as.example/token', LOCAL_MCP).ok).toBe(true);
    expect(checkEndpoint('http://127.0.0.1:9/token', LOCAL_MCP).ok).toBe(true);
    expect(checkEndpoint('http://localhost:9/token', LOCAL_MCP).ok).toBe(true);
    expect(checkEndpoint('http://[::1]:9/token', LOCAL_MCP).ok).toBe(true);
    expect(checkEndpoint('http://as.example/token', LOCAL_MCP)).toEqual({
      ok: false,
      reason: 'the URL is not https',
    });
    expect(checkEndpoint('http://127.0.0.1.nip.io/token', LOCAL_MCP)).toEqual({
      ok: false,
      reason: 'the URL is not https',
    });
  });

  it('refuses other schemes, user info, fragments and what is no URL', () => {
    expect(checkEndpoint('file:///etc/passwd', LOCAL_MCP)).toEqual({
      ok: false,
      reason: 'the URL is not https',
    });
    expect(checkEndpoint('javascript:alert(1)', LOCAL_MCP)).toEqual({
      ok: false,
      reason: 'the URL is not https',
    });
    expect(checkEndpoint('https://u:p@as.example/', LOCAL_MCP)).toEqual({
      ok: false,
      reason: 'the URL has user info',
    });
    expect(checkEndpoint('https://as.example/#', LOCAL_MCP)).toEqual({
      ok: false,
      reason: 'the URL has a fragment',
    });
    expect(checkEndpoint('not a url', LOCAL_MCP)).toEqual({ ok: false, reason: 'the URL is not valid' });
    expect(checkEndpoint(42, LOCAL_MCP)).toEqual({ ok: false, reason: 'the URL is missing' });
  });
});
