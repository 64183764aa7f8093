/**
 * Property: authorization URLs built from valid parts are accepted, and each one-fault variant is
 * refused with the log line of its fault (docs/sign-in.md#sign-in-authorization-url). The test
 * counts what it really checked of each kind and asserts a minimum.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAuthorizationUrl } from '../../src/oauth/authorizationUrl.js';

const REDIRECT = 'http://127.0.0.1:41894/callback';
/** A loopback MCP URL: loopback http authorization URLs are allowed with it. */
const MCP = 'https://127.0.0.1:8443/mcp';

// `xn--` and `??--` labels are A-labels of IDNA, which the URL parser decodes and may refuse
// ("xn--0" is not valid punycode): such a host is no valid part.
const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/).filter((name) => !/^..--/.test(name));
/** Characters a URL may hold unescaped outside the rules: unreserved and sub-delimiters (shell syntax included). */
const safeText = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,24}$/);
const queryValue = fc.stringMatching(/^[A-Za-z0-9._~!$'()*,;:@/-]{1,24}$/);
const escape = fc.constantFrom('%2F', '%41', '%7e', '%20', '%C3%A9');

const remoteHost = fc
  .array(label, { minLength: 1, maxLength: 3 })
  .map((labels) => `${labels.join('.')}.example`);
const loopbackHost = fc.oneof(
  fc.constant('localhost'),
  label.map((name) => `${name}.localhost`),
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `127.${a}.${b}.${c}`),
  fc.constant('[::1]'),
);
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });

/** A valid authorization URL, as parts, so that a fault can be put into one part. */
const validParts = fc.record({
  origin: fc.oneof(
    fc.tuple(remoteHost, port).map(([host, p]) => `https://${host}${p === undefined ? '' : `:${p}`}`),
    fc.tuple(loopbackHost, port).map(([host, p]) => `http://${host}${p === undefined ? '' : `:${p}`}`),
  ),
  path: fc.array(fc.oneof(safeText, escape), { maxLength: 4 }).map((segments) => `/${segments.join('/')}`),
  state: fc.stringMatching(/^[A-Za-z0-9_-]{1,43}$/),
  extra: fc.array(fc.tuple(fc.stringMatching(/^[a-z_]{1,12}$/), queryValue), { maxLength: 4 }),
});
type Parts = typeof validParts extends fc.Arbitrary<infer T> ? T : never;

const build = (p: Parts, redirect = encodeURIComponent(REDIRECT)): string => {
  const extra = p.extra
    .filter(([name]) => name !== 'state' && name !== 'redirect_uri')
    .map(([name, value]) => `&${name}=${value}`)
    .join('');
  return `${p.origin}${p.path}?response_type=code&state=${p.state}&redirect_uri=${redirect}${extra}`;
};

const notValid = (error: string) =>
  `the authorization URL is not valid (${error}), thus the bridge does not open it`;

/** One fault per variant, with the log line it must produce. */
const faults: fc.Arbitrary<{ kind: string; apply: (url: string, p: Parts) => string; log: string }> =
  fc.oneof(
    fc.constantFrom(';', '|', '`', '"', '<', '>', '\\', '^', '{', '}', ' ', '\t', '\u00e9').map((ch) => ({
      kind: `char ${JSON.stringify(ch)}`,
      apply: (url: string) => `${url}&x=a${ch}b`,
      log:
        ch === ';'
          ? ''
          : notValid(
              /[ \t\u00e9]/.test(ch)
                ? 'it holds a character outside visible ASCII'
                : 'it holds one of the characters " < > \\ ^ ` { | }',
            ),
    })),
    fc.constantFrom('%', '%4', '%g1', '%%').map((bad) => ({
      kind: 'percent',
      apply: (url: string) => `${url}&x=${bad}`,
      log: notValid('it holds a "%" that is not followed by two hexadecimal digits'),
    })),
    fc.constantFrom('file', 'javascript', 'ftp', 'data', 'vscode').map((scheme) => ({
      kind: 'scheme',
      apply: (url: string) => url.replace(/^https?/, scheme),
      log: notValid('it is not an https URL'),
    })),
    fc.tuple(remoteHost, port).map(([host]) => ({
      kind: 'http remote',
      apply: (_url: string, p: Parts) => build({ ...p, origin: `http://${host}` }),
      log: notValid('it is not an https URL, and http is allowed only for a loopback host'),
    })),
    fc.constantFrom('user@', 'user:pw@', '@', 'evil.example@').map((info) => ({
      kind: 'user info',
      apply: (url: string) => url.replace('://', `://${info}`),
      log: notValid('it holds user information'),
    })),
    fc.constantFrom('#', '#frag').map((fragment) => ({
      kind: 'fragment',
      apply: (url: string) => `${url}${fragment}`,
      log: notValid('it has a fragment'),
    })),
    fc.constant({
      kind: 'length',
      apply: (url: string) => `${url}&pad=${'a'.repeat(8192)}`,
      log: notValid('it is longer than 8 KiB'),
    }),
    fc.constant({
      kind: 'no state',
      apply: (url: string) => url.replace(/state=[A-Za-z0-9_-]+&/, ''),
      log: 'the authorization URL has no state, thus the bridge does not open it',
    }),
    fc
      .constantFrom(
        'http%3A%2F%2F127.0.0.1%3A41895%2Fcallback',
        'http%3A%2F%2Flocalhost%3A41894%2Fcallback',
        'https%3A%2F%2Fevil.example%2F',
      )
      .map((other) => ({
        kind: 'redirect',
        apply: (_url: string, p: Parts) => build(p, other),
        log: 'the redirect URI of the authorization URL is not the redirect URI of the receiver',
      })),
  );

describe('checkAuthorizationUrl (property)', () => {
  it('accepts every URL built from valid parts, and refuses each one-fault variant with its log line', () => {
    let accepted = 0;
    let refused = 0;
    const refusedKinds = new Set<string>();
    fc.assert(
      fc.property(validParts, faults, (parts, fault) => {
        const valid = build(parts);
        expect(checkAuthorizationUrl(valid, REDIRECT, MCP)).toEqual({ ok: true });
        accepted += 1;
        const variant = fault.apply(valid, parts);
        if (fault.log === '') {
          // `;` is a legal URL character: the shell metacharacter stays harmless because no shell runs.
          expect(checkAuthorizationUrl(variant, REDIRECT, MCP)).toEqual({ ok: true });
          accepted += 1;
          return;
        }
        expect(checkAuthorizationUrl(variant, REDIRECT, MCP)).toEqual({ ok: false, log: fault.log });
        refused += 1;
        refusedKinds.add(fault.kind.startsWith('char') ? 'char' : fault.kind);
      }),
      { numRuns: 600 },
    );
    expect(accepted).toBeGreaterThanOrEqual(600);
    expect(refused).toBeGreaterThanOrEqual(400);
    expect([...refusedKinds].sort()).toEqual([
      'char',
      'fragment',
      'http remote',
      'length',
      'no state',
      'percent',
      'redirect',
      'scheme',
      'user info',
    ]);
  });
});
