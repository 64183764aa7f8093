/**
 * The opener command of every platform (docs/sign-in.md#sign-in-consent, docs/security.md#security-rules items 2 and 11): the
 * program, the arguments and the environment, computed without starting anything.
 */
import { describe, expect, it } from 'vitest';
import { openerCommand } from '../../src/oauth/browser.js';

const START = 'http://127.0.0.1:41894/start/abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ';
const ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/u',
  MCP_BRIDGE_TOKEN_KEY: 'k'.repeat(64),
  MCP_BRIDGE_CLIENT_SECRET: 'client-secret',
  MY_API_KEY: 'header-secret',
  OTHER: 'kept',
};
const KEPT = { PATH: '/usr/bin:/bin', HOME: '/home/u', OTHER: 'kept' };

describe('openerCommand', () => {
  it('runs xdg-open on Linux with the start URL as its only argument', () => {
    expect(openerCommand(START, { env: ENV, secretVariables: ['MY_API_KEY'], platform: 'linux' })).toEqual({
      file: 'xdg-open',
      args: [START],
      env: KEPT,
    });
  });

  it('runs open on macOS', () => {
    expect(openerCommand(START, { env: ENV, secretVariables: ['MY_API_KEY'], platform: 'darwin' })).toEqual({
      file: 'open',
      args: [START],
      env: KEPT,
    });
  });

  it('runs xdg-open on the other POSIX systems', () => {
    expect(openerCommand(START, { env: {}, secretVariables: [], platform: 'freebsd' }).file).toBe('xdg-open');
  });

  it('runs $BROWSER as one program path, also with spaces or %s in it (no shell parsing)', () => {
    const command = (browser: string) =>
      openerCommand(START, {
        env: { ...ENV, BROWSER: browser },
        secretVariables: ['MY_API_KEY'],
        platform: 'linux',
      });
    expect(command('/opt/my browser/bin/open-url')).toEqual({
      file: '/opt/my browser/bin/open-url',
      args: [START],
      env: { ...KEPT, BROWSER: '/opt/my browser/bin/open-url' },
    });
    expect(command('firefox %s:lynx').file).toBe('firefox %s:lynx');
    expect(command('firefox %s:lynx').args).toEqual([START]);
    expect(command('x; touch /tmp/pwned').file).toBe('x; touch /tmp/pwned');
    expect(
      openerCommand(START, { env: { BROWSER: '/usr/bin/firefox' }, secretVariables: [], platform: 'darwin' })
        .file,
    ).toBe('/usr/bin/firefox');
  });

  it('ignores an empty $BROWSER', () => {
    expect(openerCommand(START, { env: { BROWSER: '' }, secretVariables: [], platform: 'linux' }).file).toBe(
      'xdg-open',
    );
  });

  it('runs rundll32 url.dll,FileProtocolHandler by its full path on Windows, never cmd, and ignores $BROWSER', () => {
    const env = {
      SystemRoot: 'D:\\Win',
      BROWSER: 'C:\\evil.exe',
      MCP_BRIDGE_TOKEN_KEY: 'k',
      Path: 'C:\\bin',
    };
    expect(openerCommand(START, { env, secretVariables: [], platform: 'win32' })).toEqual({
      file: 'D:\\Win\\System32\\rundll32.exe',
      args: ['url.dll,FileProtocolHandler', START],
      env: { SystemRoot: 'D:\\Win', BROWSER: 'C:\\evil.exe', Path: 'C:\\bin' },
    });
    expect(
      openerCommand(START, { env: { SYSTEMROOT: 'E:\\W' }, secretVariables: [], platform: 'win32' }).file,
    ).toBe('E:\\W\\System32\\rundll32.exe');
    expect(openerCommand(START, { env: {}, secretVariables: [], platform: 'win32' }).file).toBe(
      'C:\\Windows\\System32\\rundll32.exe',
    );
  });

  it('removes the secret variables in any letter case on every platform', () => {
    const env = { mcp_bridge_token_key: 'a', Mcp_Bridge_Client_Secret: 'b', my_api_key: 'c', KEEP: 'd' };
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const command = openerCommand(START, { env, secretVariables: ['MY_API_KEY'], platform });
      expect(command.env).toEqual({ KEEP: 'd' });
    }
  });

  it('does not change the environment it was given', () => {
    const env = { ...ENV };
    openerCommand(START, { env, secretVariables: ['MY_API_KEY'], platform: 'linux' });
    expect(env).toEqual(ENV);
  });
});
