import { describe, expect, it } from 'vitest';
import { parseHello } from '../../src/node/sharedConnection.js';

const hello = {
  v: 1,
  kind: 'session',
  profile: 'mcp-bridge',
  argv: ['--', 'node'],
  cwd: '/tmp',
  env: { A: 'b' },
};

describe('parseHello', () => {
  it('takes a valid hello', () => {
    expect(parseHello(JSON.stringify(hello))).toEqual(hello);
    expect(parseHello(JSON.stringify({ ...hello, graceMs: 0 }))).toEqual({ ...hello, graceMs: 0 });
    expect(parseHello(JSON.stringify({ ...hello, secret: 'ab' }))).toEqual({ ...hello, secret: 'ab' });
  });

  it.each([
    ['not JSON', '{'],
    ['another version', JSON.stringify({ ...hello, v: 2 })],
    ['an unknown kind', JSON.stringify({ ...hello, kind: 'exec' })],
    ['an argument that is not a string', JSON.stringify({ ...hello, argv: ['--', 1] })],
    ['an environment value that is not a string', JSON.stringify({ ...hello, env: { A: 1 } })],
    ['a negative grace', JSON.stringify({ ...hello, graceMs: -1 })],
    ['no cwd', JSON.stringify({ ...hello, cwd: undefined })],
    ['a secret that is not a string', JSON.stringify({ ...hello, secret: 1 })],
  ])('refuses %s', (_what, text) => {
    expect(parseHello(text)).toBeUndefined();
  });
});
