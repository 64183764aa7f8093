import { describe, expect, it } from 'vitest';
import { checkUpstreamUrl, isLoopbackHost } from '../../src/cli/urlRules.js';
import { error, serve } from './parse.js';

describe('URL rules (docs/http-upstream.md#http-url-rules)', () => {
  it.each([
    'https://mcp.example.com/mcp',
    'https://mcp.example.com:8443/v1/mcp?key=SECRET-123&x=1',
    'HTTPS://MCP.Example.com/',
    'https://192.0.2.10/mcp',
    'https://[2001:db8::1]:443/mcp',
    'http://localhost:8080/mcp',
    'http://LOCALHOST/mcp',
    'http://foo.localhost:8080/mcp',
    'http://127.0.0.1:3000/mcp',
    'http://127.255.1.2/',
    'http://[::1]:3000/mcp',
    'http://[0:0:0:0:0:0:0:1]/mcp',
  ])('%s is allowed and kept as given', (url) => {
    expect(serve([url]).upstream).toEqual({ kind: 'url', url });
  });

  it.each([
    ['http to a host that is not loopback', 'http://mcp-SECRET-123.example.com/mcp'],
    ['a look-alike of 127.0.0.1', 'http://127.0.0.1.evil-SECRET-123.com/mcp'],
    ['a look-alike of localhost', 'http://localhost.evil-SECRET-123.com/mcp'],
    ['a name that only starts with localhost', 'http://localhost-SECRET-123/mcp'],
    ['an address outside 127.0.0.0/8', 'http://128.0.0.1/SECRET-123'],
    ['an IPv6 address other than ::1', 'http://[::2]/SECRET-123'],
    ['an IPv4-mapped IPv6 address', 'http://[::ffff:127.0.0.1]/SECRET-123'],
    ['user and password', 'https://user:SECRET-123@mcp.example.com/mcp'],
    ['a user name', 'https://SECRET-123@mcp.example.com/mcp'],
    ['an empty user info', 'https://@mcp.example.com/SECRET-123'],
    ['user info on loopback', 'http://u:SECRET-123@localhost/mcp'],
    ['a fragment', 'https://mcp.example.com/mcp#SECRET-123'],
    ['an empty fragment', 'https://mcp.example.com/SECRET-123#'],
    ['port 0', 'https://mcp.example.com:0/SECRET-123'],
    ['port 00', 'http://localhost:00/SECRET-123'],
    ['a port above 65535', 'https://mcp.example.com:65536/SECRET-123'],
    ['no host', 'https:///SECRET-123'],
    ['only a scheme', 'https://'],
    ['only a port', 'https://:443/SECRET-123'],
    ['another scheme', 'ftp://mcp.example.com/SECRET-123'],
    ['a websocket scheme', 'wss://mcp.example.com/SECRET-123'],
    ['a scheme without "//" first', 'https:mcp.example.com/x://SECRET-123'],
    ['a space', 'https://mcp.example.com/SECRET-123 x'],
    ['a tab', 'https://mcp.example.com/\tSECRET-123'],
    ['a non-ASCII letter', 'https://exämple.com/SECRET-123'],
    ['an invalid host', 'https://exa<mple.com/SECRET-123'],
  ])('refused: %s, and the hint never echoes the URL', (_rule, url) => {
    const message = error([url]);
    expect(message).toMatch(/^the URL of the upstream server is not valid: /);
    expect(message).not.toContain('SECRET');
    expect(message).not.toContain('example');
    expect(message).not.toContain('evil');
  });

  it('each refusal says why', () => {
    expect(error(['http://mcp.example.com/'])).toMatch(/http is allowed only for a loopback host/);
    expect(error(['https://u:p@mcp.example.com/'])).toMatch(/user name or password/);
    expect(error(['https://mcp.example.com/#x'])).toMatch(/fragment/);
    expect(error(['https://mcp.example.com:0/'])).toMatch(/port 0/);
    expect(error(['https:///x'])).toMatch(/no host/);
    expect(error(['ftp://mcp.example.com/'])).toMatch(/give an https URL/);
    expect(error(['https://ex ample.com/'])).toMatch(/visible ASCII/);
  });

  it('checkUpstreamUrl throws for a bad URL and returns for a good one', () => {
    expect(() => checkUpstreamUrl('https://mcp.example.com/')).not.toThrow();
    expect(() => checkUpstreamUrl('http://mcp.example.com/')).toThrow(/not valid/);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LocalHost',
    'a.localhost',
    'a.b.localhost',
    '127.0.0.1',
    '127.0.0.0',
    '127.255.255.255',
    '[::1]',
    '::1',
  ])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each([
    'localhost.com',
    'xlocalhost',
    '127.0.0.1.evil.com',
    '127.0.0.256',
    '127.1',
    '1.127.0.0.1',
    '128.0.0.1',
    '[::2]',
    '',
  ])('%s is not loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});
