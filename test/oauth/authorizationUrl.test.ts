/**
 * The authorization URL check (docs/sign-in.md#sign-in-authorization-url, docs/security.md#security-1) with the loopback `http`
 * deviation of docs/sign-in.md#sign-in-urls, and the sign-in endpoint check. Every expectation is a literal.
 */
import { describe, expect, it } from 'vitest';
import {
  checkAuthorizationUrl,
  checkSignInEndpoint,
  isLoopbackHost,
} from '../../src/oauth/authorizationUrl.js';

const REDIRECT = 'http://127.0.0.1:41894/callback';
/** A loopback MCP URL: loopback http authorization URLs are allowed with it. */
const MCP = 'https://127.0.0.1:8443/mcp';
const ENCODED = 'http%3A%2F%2F127.0.0.1%3A41894%2Fcallback';
const QUERY = `response_type=code&client_id=c1&state=s1&redirect_uri=${ENCODED}&code_challenge=abc&code_challenge_method=S256`;
const url = (origin: string, extra = ''): string => `${origin}/authorize?${QUERY}${extra}`;

const notValid = (error: string) => ({
  ok: false,
  log: `the authorization URL is not valid (${error}), thus the bridge does not open it`,
});
const NO_STATE = { ok: false, log: 'the authorization URL has no state, thus the bridge does not open it' };
const WRONG_REDIRECT = {
  ok: false,
  log: 'the redirect URI of the authorization URL is not the redirect URI of the receiver',
};
const NOT_HTTPS = notValid('it is not an https URL');
const HTTP_REMOTE = notValid('it is not an https URL, and http is allowed only for a loopback host');
const USER_INFO = notValid('it holds user information');
const FRAGMENT = notValid('it has a fragment');
const UNSAFE = notValid('it holds one of the characters " < > \\ ^ ` { | }');
const PERCENT = notValid('it holds a "%" that is not followed by two hexadecimal digits');
const NOT_VISIBLE = notValid('it holds a character outside visible ASCII');
const OK = { ok: true };

describe('checkAuthorizationUrl', () => {
  it.each([
    ['https to any host', url('https://as.example'), OK],
    ['https with a port and a path', `https://as.example:8443/tenant/oauth2/authorize?${QUERY}`, OK],
    ['an upper-case scheme', url('HTTPS://as.example'), OK],
    ['http to localhost', url('http://localhost:9000'), OK],
    ['http to a name under .localhost', url('http://auth.localhost'), OK],
    ['http to 127.0.0.0/8', url('http://127.5.6.7:80'), OK],
    ['http to [::1]', url('http://[::1]:8443'), OK],
    ['the largest port', url('https://as.example:65535'), OK],
    ['valid percent escapes', url('https://as.example', '&x=%2F%7e%41'), OK],
  ])('accepts %s', (_name, input, expected) => {
    expect(checkAuthorizationUrl(input, REDIRECT, MCP)).toEqual(expected);
  });

  it.each([
    ['";" "&" "$" "(" ")" "!" "*" "\'"', url('https://as.example', ";touch%20x&y=$(touch%20x)&z='!*'")],
    ['"$(...)" in the path', `https://as.example/authorize/$(touch%20x);id?${QUERY}`],
  ])(
    'accepts the shell metacharacters %s, which a URL may hold (never passed to a shell)',
    (_name, input) => {
      expect(checkAuthorizationUrl(input, REDIRECT, MCP)).toEqual(OK);
    },
  );

  it.each([
    ['http to a remote host', url('http://as.example'), HTTP_REMOTE],
    ['http to 127.1 (loopback in another spelling)', url('http://127.1'), HTTP_REMOTE],
    ['http to 0x7f.0.0.1', url('http://0x7f.0.0.1'), HTTP_REMOTE],
    ['http to a look-alike host', url('http://127.0.0.1.nip.io'), HTTP_REMOTE],
    ['http to localhost.example', url('http://localhost.example'), HTTP_REMOTE],
    ['http to a localhost name with a trailing dot', url('http://localhost.'), HTTP_REMOTE],
    ['file:', `file:///etc/passwd?${QUERY}`, NOT_HTTPS],
    ['javascript:', `javascript:alert(1)//?${QUERY}`, NOT_HTTPS],
    ['javascript: with slashes', `javascript://as.example/%0aalert(1)?${QUERY}`, NOT_HTTPS],
    ['data:', `data:text/html,x?${QUERY}`, NOT_HTTPS],
    ['ftp:', url('ftp://as.example'), NOT_HTTPS],
    ['https without //', `https:as.example/authorize?${QUERY}`, NOT_HTTPS],
    ['a relative URL', `/authorize?${QUERY}`, NOT_HTTPS],
    ['user and password', url('https://user:pw@as.example'), USER_INFO],
    ['a foreign host as user name', url('https://as.example@evil.example'), USER_INFO],
    ['an empty user info', url('https://@as.example'), USER_INFO],
    ['a fragment', url('https://as.example', '#x'), FRAGMENT],
    ['an empty fragment', url('https://as.example', '#'), FRAGMENT],
    ['no host', `https:///authorize?${QUERY}`, notValid('it has no host')],
    ['a port above 65535', url('https://as.example:65536'), notValid('its port is above 65535')],
    ['a port that is not a number', url('https://as.example:44x'), notValid('it cannot be read as a URL')],
    ['"|"', url('https://as.example', '&x=a|id'), UNSAFE],
    ['"`"', url('https://as.example', '&x=`id`'), UNSAFE],
    ["'\"'", url('https://as.example', '&x="'), UNSAFE],
    ['"<" and ">"', url('https://as.example', '&x=<script>'), UNSAFE],
    ['"\\"', `https://as.example\\evil.example/authorize?${QUERY}`, UNSAFE],
    ['"^"', url('https://as.example', '&x=^'), UNSAFE],
    ['"{" and "}"', url('https://as.example', '&x={a}'), UNSAFE],
    ['"%" at the end', url('https://as.example', '&x=%'), PERCENT],
    ['"%" with one hex digit', url('https://as.example', '&x=%2'), PERCENT],
    ['"%" with non-hex digits', url('https://as.example', '&x=%zz'), PERCENT],
    ['"%%"', url('https://as.example', '&x=%%41'), PERCENT],
    ['a space (0x20)', url('https://as.example', '&x=a b'), NOT_VISIBLE],
    ['a tab', url('https://as.example', '&x=a\tb'), NOT_VISIBLE],
    ['a line feed', url('https://as.example', '&x=a\nb'), NOT_VISIBLE],
    ['NUL', url('https://as.example', '&x=\u0000'), NOT_VISIBLE],
    ['DEL (0x7F)', url('https://as.example', '&x=\u007f'), NOT_VISIBLE],
    ['a Latin-1 letter', url('https://as.example', '&x=\u00e9'), NOT_VISIBLE],
    ['a right-to-left override', url('https://as.example', '&x=\u202e'), NOT_VISIBLE],
    ['a non-ASCII host', url('https://\u0430s.example'), NOT_VISIBLE],
  ])('refuses %s', (_name, input, expected) => {
    expect(checkAuthorizationUrl(input, REDIRECT, MCP)).toEqual(expected);
  });

  it('accepts a URL of exactly 8192 characters and refuses one of 8193', () => {
    const base = url('https://as.example', '&pad=');
    const at = `${base}${'a'.repeat(8192 - base.length)}`;
    expect(at).toHaveLength(8192);
    expect(checkAuthorizationUrl(at, REDIRECT, MCP)).toEqual(OK);
    expect(checkAuthorizationUrl(`${at}a`, REDIRECT, MCP)).toEqual(notValid('it is longer than 8 KiB'));
    // The length rule comes first: a huge URL with other faults still gets the length error.
    expect(checkAuthorizationUrl(`javascript:${' '.repeat(100_000)}`, REDIRECT, MCP)).toEqual(
      notValid('it is longer than 8 KiB'),
    );
  });

  it.each([
    ['no state parameter', `https://as.example/authorize?client_id=c1&redirect_uri=${ENCODED}`, NO_STATE],
    ['an empty state', `https://as.example/authorize?state=&redirect_uri=${ENCODED}`, NO_STATE],
    ['no query', 'https://as.example/authorize', NO_STATE],
    ['"state" only in the path', `https://as.example/state/s1?redirect_uri=${ENCODED}`, NO_STATE],
    ['a repeated state', url('https://as.example', '&state=s2'), notValid('it holds more than one state')],
  ])('refuses %s', (_name, input, expected) => {
    expect(checkAuthorizationUrl(input, REDIRECT, MCP)).toEqual(expected);
  });

  it.each([
    ['no redirect_uri', 'https://as.example/authorize?state=s1'],
    [
      'another port',
      'https://as.example/authorize?state=s1&redirect_uri=http%3A%2F%2F127.0.0.1%3A41895%2Fcallback',
    ],
    [
      'localhost instead of 127.0.0.1',
      'https://as.example/authorize?state=s1&redirect_uri=http%3A%2F%2Flocalhost%3A41894%2Fcallback',
    ],
    [
      'another path',
      'https://as.example/authorize?state=s1&redirect_uri=http%3A%2F%2F127.0.0.1%3A41894%2Fcallback%2F',
    ],
    [
      'a foreign host',
      'https://as.example/authorize?state=s1&redirect_uri=https%3A%2F%2Fevil.example%2Fcallback',
    ],
    ['a repeated redirect_uri', url('https://as.example', `&redirect_uri=${ENCODED}`)],
  ])('refuses a wrong redirect_uri: %s', (_name, input) => {
    expect(checkAuthorizationUrl(input, REDIRECT, MCP)).toEqual(WRONG_REDIRECT);
  });

  it('compares the redirect URI with the one of the receiver it is given', () => {
    const other = 'http://127.0.0.1:50000/callback';
    expect(checkAuthorizationUrl(url('https://as.example'), other, MCP)).toEqual(WRONG_REDIRECT);
    const input = `https://as.example/a?state=s&redirect_uri=http%3A%2F%2F127.0.0.1%3A50000%2Fcallback`;
    expect(checkAuthorizationUrl(input, other, MCP)).toEqual(OK);
  });

  it('never puts the URL in the log line', () => {
    const secret = 'k3y-9f2c';
    const inputs = [
      `http://as.example/authorize?key=${secret}&state=s1&redirect_uri=${ENCODED}`,
      `https://as.example/authorize?key=${secret}&redirect_uri=${ENCODED}`,
      `https://as.example/authorize?key=${secret}&state=s1`,
      `https://as.example/authorize?key=${secret}&state=s1#${secret}`,
      `https://${secret}@as.example/authorize?state=s1`,
    ];
    for (const input of inputs) {
      const result = checkAuthorizationUrl(input, REDIRECT, MCP);
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toContain(secret);
      expect(JSON.stringify(result)).not.toContain('as.example');
    }
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['auth.localhost', true],
    ['a.b.localhost', true],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['[::1]', true],
    ['::1', true],
    ['localhost.', false],
    ['.localhost', false],
    ['a..localhost', false],
    ['localhost.example', false],
    ['notlocalhost', false],
    ['128.0.0.1', false],
    ['127.0.0.256', false],
    ['127.0.0', false],
    ['127.0.0.1.example', false],
    ['[::2]', false],
    ['[::ffff:7f00:1]', false],
    ['0.0.0.0', false],
    ['', false],
  ])('%s -> %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('checkAuthorizationUrl: loopback http only for a loopback MCP URL', () => {
  const LOOPBACK_HTTP = notValid('it is http on a loopback host, which only a loopback MCP URL allows');

  it('refuses a loopback http authorization URL with a remote MCP URL, and the log holds no URL', () => {
    const remote = 'https://mcp.example/mcp?key=secret-k';
    for (const origin of ['http://127.0.0.1:9', 'http://localhost:9', 'http://[::1]:9']) {
      const result = checkAuthorizationUrl(url(origin), REDIRECT, remote);
      expect(result).toEqual(LOOPBACK_HTTP);
      expect(JSON.stringify(result)).not.toContain('secret-k');
      expect(JSON.stringify(result)).not.toContain('127.0.0.1:9');
    }
    expect(checkAuthorizationUrl(url('https://as.example'), REDIRECT, remote)).toEqual(OK);
  });

  it('takes it with a loopback MCP URL', () => {
    expect(checkAuthorizationUrl(url('http://127.0.0.1:9'), REDIRECT, 'https://127.0.0.1:8443/mcp')).toEqual(
      OK,
    );
    expect(checkAuthorizationUrl(url('http://localhost:9'), REDIRECT, 'http://localhost:3000/mcp')).toEqual(
      OK,
    );
  });
});

describe('checkSignInEndpoint', () => {
  it.each([
    ['https://as.example/.well-known/oauth-authorization-server', undefined],
    ['https://as.example', undefined],
    ['https://as.example/token?x=1', undefined],
    ['http://127.0.0.1:8080/token', undefined],
    ['http://localhost/register', undefined],
    ['http://[::1]:9/', undefined],
    ['http://as.example/token', 'it is not an https URL, and http is allowed only for a loopback host'],
    ['http://127.1/token', 'it is not an https URL, and http is allowed only for a loopback host'],
    ['ftp://as.example/token', 'it is not an https URL'],
    ['file:///etc/passwd', 'it is not an https URL'],
    ['javascript:alert(1)', 'it is not an https URL'],
    ['https:as.example', 'it is not an https URL'],
    ['https://user:pw@as.example/token', 'it holds user information'],
    ['https://@as.example/token', 'it holds user information'],
    ['https://as.example/token#x', 'it has a fragment'],
    ['https://as.example/token#', 'it has a fragment'],
    ['https:///token', 'it has no host'],
    ['https://as.example/to ken', 'it holds a character outside visible ASCII'],
    ['https://as.example:70000/', 'its port is above 65535'],
  ])('%s -> %s', (input, expected) => {
    expect(checkSignInEndpoint(input, MCP)).toBe(expected);
  });

  it('refuses loopback http with a remote MCP URL', () => {
    const remote = 'https://mcp.example/mcp';
    const refusal = 'it is http on a loopback host, which only a loopback MCP URL allows';
    expect(checkSignInEndpoint('http://127.0.0.1:8080/token', remote)).toBe(refusal);
    expect(checkSignInEndpoint('http://localhost/register', remote)).toBe(refusal);
    expect(checkSignInEndpoint('https://127.0.0.1:8080/token', remote)).toBeUndefined();
  });
});
