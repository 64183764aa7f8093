/**
 * The address classes of the sign-in's host rule (src/edges/http/hostClass.ts; SECURITY.md,
 * "Which hosts the sign-in may talk to").
 */
import { describe, expect, it } from 'vitest';
import { allowedFor, classifyAddress, classifyHost } from '../../../src/edges/http/hostClass.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['0.1.2.3', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['::ffff:169.254.1.1', 'link-local'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['fc00::1', 'private'],
    ['fdff::1', 'private'],
    ['fec0::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['[::ffff:192.168.1.1]', 'private'],
    ['8.8.8.8', 'public'],
    ['9.255.255.255', 'public'],
    ['11.0.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.169.0.1', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['128.0.0.1', 'public'],
    ['2001:db8::1', 'public'],
    ['fbff::1', 'public'],
    ['fe00::1', 'public'],
    ['::2', 'public'],
    ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('is undefined for what is no literal address', () => {
    expect(classifyAddress('localhost')).toBeUndefined();
    expect(classifyAddress('example.com')).toBeUndefined();
    expect(classifyAddress('10.0.0.1.nip.io')).toBeUndefined();
  });
});

describe('classifyHost', () => {
  it('counts localhost names as loopback (RFC 6761 §6.3) and other names as names', () => {
    expect(classifyHost('localhost')).toBe('loopback');
    expect(classifyHost('LOCALHOST.')).toBe('loopback');
    expect(classifyHost('mcp.localhost')).toBe('loopback');
    expect(classifyHost('localhost.example.com')).toBe('name');
    expect(classifyHost('mylocalhost')).toBe('name');
    expect(classifyHost('[fd00::1]')).toBe('private');
    expect(classifyHost('example.com')).toBe('name');
  });
});

describe('allowedFor', () => {
  it('a public MCP server: public addresses only', () => {
    expect(allowedFor('public', 'public')).toBe(true);
    expect(allowedFor('public', 'private')).toBe(false);
    expect(allowedFor('public', 'link-local')).toBe(false);
    expect(allowedFor('public', 'loopback')).toBe(false);
  });

  it('a private MCP server: private and public, never loopback or link-local', () => {
    expect(allowedFor('private', 'public')).toBe(true);
    expect(allowedFor('private', 'private')).toBe(true);
    expect(allowedFor('private', 'link-local')).toBe(false);
    expect(allowedFor('private', 'loopback')).toBe(false);
  });

  it('a link-local MCP server: link-local and public', () => {
    expect(allowedFor('link-local', 'link-local')).toBe(true);
    expect(allowedFor('link-local', 'public')).toBe(true);
    expect(allowedFor('link-local', 'private')).toBe(false);
    expect(allowedFor('link-local', 'loopback')).toBe(false);
  });

  it('a loopback MCP server (a local test server): every address', () => {
    for (const target of ['loopback', 'link-local', 'private', 'public'] as const) {
      expect(allowedFor('loopback', target)).toBe(true);
    }
  });
});
