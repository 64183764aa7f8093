import { describe, expect, it } from 'vitest';
import { covers, initialScope, splitScopes, stepUpScope } from '../../src/oauth/scopes.js';

describe('initialScope (protocol-mapping §8.8, §8.9)', () => {
  it('takes the scope of the challenge first', () => {
    expect(
      initialScope({ challengeScope: 'a b', resourceScopes: ['x', 'y'], serverScopes: ['a', 'b', 'x'] }),
    ).toBe('a b');
  });

  it('else every scopes_supported of the resource metadata', () => {
    expect(
      initialScope({ challengeScope: undefined, resourceScopes: ['x', 'y'], serverScopes: undefined }),
    ).toBe('x y');
  });

  it('else none', () => {
    expect(
      initialScope({ challengeScope: undefined, resourceScopes: undefined, serverScopes: ['a'] }),
    ).toBeUndefined();
  });

  it('adds offline_access only when the authorization server lists it, once', () => {
    expect(
      initialScope({ challengeScope: 'a', resourceScopes: undefined, serverScopes: ['a', 'offline_access'] }),
    ).toBe('a offline_access');
    expect(
      initialScope({
        challengeScope: 'offline_access a',
        resourceScopes: undefined,
        serverScopes: ['offline_access'],
      }),
    ).toBe('offline_access a');
    expect(
      initialScope({ challengeScope: undefined, resourceScopes: ['offline_access'], serverScopes: ['a'] }),
    ).toBe('offline_access');
    expect(
      initialScope({
        challengeScope: undefined,
        resourceScopes: undefined,
        serverScopes: ['offline_access'],
      }),
    ).toBe('offline_access');
    expect(
      initialScope({ challengeScope: 'a', resourceScopes: undefined, serverScopes: 'offline_access' }),
    ).toBe('a');
  });
});

describe('stepUpScope', () => {
  it('is the union of the granted and the challenged scopes', () => {
    expect(
      stepUpScope({ granted: 'read offline_access', challengeScope: 'write read', serverScopes: undefined }),
    ).toBe('read offline_access write');
    expect(
      stepUpScope({ granted: undefined, challengeScope: 'write', serverScopes: ['offline_access'] }),
    ).toBe('write offline_access');
  });
});

describe('covers and splitScopes', () => {
  it('says whether every needed scope is granted', () => {
    expect(covers('a b c', 'c a')).toBe(true);
    expect(covers('a b', 'a d')).toBe(false);
    expect(covers(undefined, 'a')).toBe(false);
    expect(covers('a', undefined)).toBe(true);
  });

  it('splits on runs of white space without repeats', () => {
    expect(splitScopes('  a\tb  a\nc ')).toEqual(['a', 'b', 'c']);
    expect(splitScopes(undefined)).toEqual([]);
  });
});
