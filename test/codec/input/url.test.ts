import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAllowedElicitationUrl } from '../../../src/codec/input/url.js';

const SEED = 20261130;

describe('isAllowedElicitationUrl', () => {
  it.each([
    'https://example.com/',
    'https://example.com/sign-in?x=1#done',
    'HTTPS://Example.COM/path',
    'https://user-less.example:8443/a',
    'http://localhost/',
    'http://localhost:8080/callback?code=1',
    'http://LOCALHOST:3000',
    'http://127.0.0.1/',
    'http://127.255.10.1:9/x',
    'http://[::1]:8080/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
  ])('allows %s', (url) => {
    expect(isAllowedElicitationUrl(url)).toBe(true);
  });

  it.each([
    ['a backslash', 'https://example.com\\@evil.example/'],
    ['a backslash in the path', 'https://example.com/a\\b'],
    ['user info', 'https://user:pass@example.com/'],
    ['a user name only', 'http://user@localhost/'],
    ['empty user info', 'http://@localhost/'],
    ['javascript:', 'javascript:alert(1)'],
    ['vscode:', 'vscode://settings/open'],
    ['command:', 'command:workbench.action.quit'],
    ['data:', 'data:text/html,<script>1</script>'],
    ['file:', 'file:///etc/passwd'],
    ['ftp:', 'ftp://example.com/'],
    ['a look-alike host', 'http://127.0.0.1.example.com/'],
    ['a look-alike localhost', 'http://localhost.example.com/'],
    ['http to another host', 'http://example.com/'],
    ['http to a private address', 'http://10.0.0.1/'],
    ['a hex loopback', 'http://0x7f.1/'],
    ['a short loopback', 'http://127.1/'],
    ['a decimal loopback', 'http://2130706433/'],
    ['an octal loopback', 'http://0177.0.0.1/'],
    ['a percent-encoded host', 'http://local%68ost/'],
    ['a trailing dot', 'http://localhost./'],
    ['a mapped address that is not loopback', 'http://[::ffff:10.0.0.1]/'],
    ['another IPv6 address', 'http://[::2]/'],
    ['a scheme without slashes', 'http:localhost/'],
    ['one slash', 'https:/example.com/'],
    ['a space', 'https://example.com/a b'],
    ['a tab', 'https://exam\tple.com/'],
    ['a newline', 'https://example.com/\n'],
    ['a leading space', ' https://example.com/'],
    ['a NUL', 'https://example.com/\u0000'],
    ['a C1 control', 'https://example.com/\u0085'],
    ['a direction override', 'https://example.com/\u202egnp.exe'],
    ['a zero-width space', 'https://exa\u200bmple.com/'],
    ['no host', 'https:///path'],
    ['not a URL', 'not a url'],
    ['an empty string', ''],
  ])('refuses %s', (_name, url) => {
    expect(isAllowedElicitationUrl(url)).toBe(false);
  });

  it('allows no URL with a backslash, user info, a scheme other than http(s), or http to a host that is not loopback', () => {
    const scheme = fc.constantFrom(
      'https',
      'http',
      'HTTP',
      'javascript',
      'vscode',
      'command',
      'data',
      'file',
      'ftp',
      'ws',
    );
    const separator = fc.constantFrom('://', ':', ':/', ':\\\\', '://\\');
    const userInfo = fc.constantFrom('', '', '', 'user@', 'user:pw@', '@', ':@');
    const host = fc.constantFrom(
      'localhost',
      '127.0.0.1',
      '127.9.8.7',
      '[::1]',
      '[::ffff:127.0.0.1]',
      'example.com',
      '127.0.0.1.example.com',
      'localhost.evil',
      '0x7f.1',
      '10.1.2.3',
      '[::2]',
      'LocalHost',
      'xn--e1afmkfd.example',
    );
    const port = fc.constantFrom('', ':80', ':8080', ':', ':99999');
    const tail = fc.string({ maxLength: 12 });
    fc.assert(
      fc.property(scheme, separator, userInfo, host, port, tail, (s, sep, user, h, p, t) => {
        const url = `${s}${sep}${user}${h}${p}/${t}`;
        if (!isAllowedElicitationUrl(url)) return;
        expect(url).not.toContain('\\');
        const parsed = new URL(url);
        expect(parsed.username).toBe('');
        expect(parsed.password).toBe('');
        expect(url.slice(0, url.indexOf('//') + 2).includes('@')).toBe(false);
        expect(['http:', 'https:']).toContain(parsed.protocol);
        if (parsed.protocol === 'http:') {
          expect(
            parsed.hostname === 'localhost' ||
              /^127\.\d+\.\d+\.\d+$/.test(parsed.hostname) ||
              parsed.hostname === '[::1]' ||
              parsed.hostname.startsWith('[::ffff:7f'),
          ).toBe(true);
        }
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('refuses arbitrary text that the URL parser would repair', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const url = `http://${text}`;
        if (!isAllowedElicitationUrl(url)) return;
        const parsed = new URL(url);
        expect(parsed.protocol).toBe('http:');
        expect(url).not.toMatch(/[\s\\]/);
        expect(/^http:\/\/[^/?#]*@/.test(url)).toBe(false);
        expect(
          ['localhost', '[::1]'].includes(parsed.hostname) ||
            /^127\./.test(parsed.hostname) ||
            parsed.hostname.startsWith('[::ffff:7f'),
        ).toBe(true);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
