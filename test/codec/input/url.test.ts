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

  it('accepts exactly the URLs the rule allows, among generated URLs of both kinds (property)', () => {
    // Each part is good (allowed by the rule) or bad, so that both verdicts come often. The
    // expected verdict is written here from the rule text (docs/input-rounds.md#input-checks), never
    // taken from the code under test.
    const part = <T>(good: T[], bad: T[]) =>
      fc.oneof(
        { arbitrary: fc.constantFrom(...good), weight: 4 },
        { arbitrary: fc.constantFrom(...bad), weight: 1 },
      );
    const scheme = part(
      ['https', 'http', 'HTTP', 'HTTPS'],
      ['javascript', 'vscode', 'command', 'data', 'file', 'ftp', 'ws'],
    );
    const separator = part(['://'], [':', ':/', ':\\\\', '://\\']);
    const userInfo = part([''], ['user@', 'user:pw@', '@', ':@']);
    const loopback = ['localhost', 'LocalHost', '127.0.0.1', '127.9.8.7', '[::1]', '[::ffff:127.0.0.1]'];
    const other = [
      'example.com',
      '127.0.0.1.example.com',
      'localhost.evil',
      '0x7f.1',
      '127.1',
      '10.1.2.3',
      '[::2]',
    ];
    const host = fc.constantFrom(...loopback, ...other);
    const port = part(['', ':80', ':8080'], [':99999', ':x']);
    const path = fc.stringMatching(/^[a-z0-9._~-]{0,12}$/);
    const bad = part([''], [' ', '\\', '\t', '\u202e', '\u0000']);
    const counts = { allowed: 0, refused: 0 };
    fc.assert(
      fc.property(scheme, separator, userInfo, host, port, path, bad, (s, sep, user, h, p, t, b) => {
        const url = `${s}${sep}${user}${h}${p}/${t}${b}`;
        const scheme = s.toLowerCase();
        const expected =
          sep === '://' &&
          user === '' &&
          b === '' &&
          (p === '' || p === ':80' || p === ':8080') &&
          (scheme === 'https' || (scheme === 'http' && loopback.includes(h)));
        expect(isAllowedElicitationUrl(url), url).toBe(expected);
        counts[expected ? 'allowed' : 'refused'] += 1;
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(counts.allowed).toBeGreaterThan(500);
    expect(counts.refused).toBeGreaterThan(500);
  });

  it('allows http with arbitrary text after the scheme only for a loopback host without user info (property)', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc
        .tuple(
          fc.constantFrom('localhost', '127.0.0.1', '[::1]', 'user@localhost'),
          fc.string({ maxLength: 12 }),
        )
        .map(([hostPart, rest]) => `${hostPart}${rest}`),
    );
    const counts = { allowed: 0, refused: 0 };
    fc.assert(
      fc.property(text, (text) => {
        const url = `http://${text}`;
        if (!isAllowedElicitationUrl(url)) {
          counts.refused += 1;
          return;
        }
        counts.allowed += 1;
        expect(url).not.toMatch(/[\s\\]/);
        expect(/^http:\/\/[^/?#]*@/.test(url)).toBe(false);
        const hostname = new URL(url).hostname;
        expect(
          ['localhost', '[::1]'].includes(hostname) ||
            /^127\./.test(hostname) ||
            hostname.startsWith('[::ffff:7f'),
          url,
        ).toBe(true);
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(counts.allowed).toBeGreaterThan(100);
    expect(counts.refused).toBeGreaterThan(300);
  });
});
