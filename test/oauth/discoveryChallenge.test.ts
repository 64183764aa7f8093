import { describe, expect, it } from 'vitest';
import { bearerChallenge, parseWwwAuthenticate } from '../../src/oauth/challenge.js';

describe('parseWwwAuthenticate', () => {
  it('reads a Bearer challenge with quoted parameters', () => {
    expect(
      parseWwwAuthenticate(
        'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write"',
      ),
    ).toEqual([
      {
        scheme: 'bearer',
        params: {
          resource_metadata: 'https://mcp.example.com/.well-known/oauth-protected-resource',
          scope: 'files:read files:write',
        },
      },
    ]);
  });

  it('keeps commas and escaped quotes inside a quoted string', () => {
    const [challenge] = parseWwwAuthenticate('Bearer error_description="a, b \\"c\\", d", scope="x"');
    expect({ ...challenge?.params }).toEqual({ error_description: 'a, b "c", d', scope: 'x' });
  });

  it('splits several challenges of one header and lower-cases schemes and names', () => {
    const parsed = parseWwwAuthenticate(
      'Basic realm="a, b", BEARER Scope="s1", error=insufficient_scope, Negotiate abc==',
    );
    expect(parsed.map((c) => ({ scheme: c.scheme, params: { ...c.params }, token68: c.token68 }))).toEqual([
      { scheme: 'basic', params: { realm: 'a, b' }, token68: undefined },
      { scheme: 'bearer', params: { scope: 's1', error: 'insufficient_scope' }, token68: undefined },
      { scheme: 'negotiate', params: {}, token68: 'abc==' },
    ]);
  });

  it('reads a scheme without parameters, empty list elements and spaces around "="', () => {
    const parsed = parseWwwAuthenticate(' , Bearer ,, Basic realm = "r" ,');
    expect(parsed.map((c) => [c.scheme, { ...c.params }])).toEqual([
      ['bearer', {}],
      ['basic', { realm: 'r' }],
    ]);
  });

  it('survives an unterminated quoted string and a value with no end', () => {
    expect(
      parseWwwAuthenticate('Bearer scope="unterminated, resource_metadata="x"').map((c) => c.scheme),
    ).toEqual(['bearer']);
    expect(parseWwwAuthenticate('Bearer scope=').map((c) => [c.scheme, { ...c.params }])).toEqual([
      ['bearer', {}],
    ]);
  });
});

describe('bearerChallenge', () => {
  it('takes the first Bearer challenge of several, case-insensitively', () => {
    expect(
      bearerChallenge(
        'Basic realm="x", bEaReR error="insufficient_scope", scope="a b", resource_metadata="https://h/m"',
      ),
    ).toEqual({ resourceMetadata: 'https://h/m', scope: 'a b', error: 'insufficient_scope' });
  });

  it('reads an unquoted URL value', () => {
    expect(bearerChallenge('Bearer resource_metadata=https://h/.well-known/x')).toEqual({
      resourceMetadata: 'https://h/.well-known/x',
    });
  });

  it('gives nothing without a header or without a Bearer challenge', () => {
    expect(bearerChallenge(undefined)).toEqual({});
    expect(bearerChallenge('Basic realm="Bearer scope=x"')).toEqual({});
  });

  it('keeps the first of a repeated parameter', () => {
    expect(bearerChallenge('Bearer scope="a", scope="b"')).toEqual({ scope: 'a' });
  });
});
