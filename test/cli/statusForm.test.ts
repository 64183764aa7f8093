/**
 * The `status` form (README.md, "Status"): `status [options] [<url>]` parses into the options of
 * runStatus; everything else is refused with a literal diagnostic that echoes no value.
 */
import { describe, expect, it } from 'vitest';
import { parse } from './parse.js';

const URL = 'https://mcp.example.com/mcp?key=SECRET-URL';

function status(argv: readonly string[], env: Record<string, string> = {}) {
  const result = parse(['status', ...argv], env);
  if (result.kind !== 'status') expect.fail(`expected status, got ${JSON.stringify(result)}`);
  return result.options;
}

function refused(argv: readonly string[]): string {
  const result = parse(['status', ...argv]);
  if (result.kind !== 'error') expect.fail(`expected an error, got ${result.kind}`);
  expect(result.message).not.toContain('SECRET');
  expect(result.message).not.toContain('example.com');
  return result.message;
}

describe('status [options] [<url>]', () => {
  it('without a URL lists every sign-in of every account', () => {
    expect(status([])).toEqual({
      tokenStore: 'auto',
      json: false,
      logLevel: 'info',
      bridgeName: 'mcp-bridge-vscode',
    });
  });

  it('takes a URL, --account, --json and the store options', () => {
    expect(
      status(['--account', 'work', '--json', '--token-store', 'file', '--token-key-file', '/k.hex', URL], {}),
    ).toEqual({
      url: URL,
      account: 'work',
      tokenStore: 'file',
      tokenKeyFile: '/k.hex',
      json: true,
      logLevel: 'info',
      bridgeName: 'mcp-bridge-vscode',
    });
  });

  it.each([
    ['--redirect-port', '5'],
    ['--all'],
    ['--no-revoke'],
    ['--ca-file', '/SECRET'],
    ['--client-id', 'SECRET'],
    ['--header', 'X-A:SECRET'],
  ])('%s: status does not take it', (...option) => {
    expect(refused([...option, URL])).toBe(
      `the option ${option[0] ?? ''} cannot be used here: status does not take it`,
    );
  });

  it('--json outside status: only status takes it', () => {
    expect(parse(['--json', URL])).toEqual({
      kind: 'error',
      message: 'the option --json cannot be used here: only status takes it',
    });
  });

  it('a stray argument, an argument after the URL, a command', () => {
    const notAnOption =
      'an argument is not an option: give the options of status first, then the URL of an upstream server, or no URL for every stored sign-in';
    expect(refused(['SECRET'])).toBe(notAnOption);
    expect(refused(['--', 'SECRET'])).toBe(notAnOption);
    expect(refused([URL, '--json'])).toBe(
      'an argument follows the URL of the upstream server: the URL must be the last argument',
    );
  });

  it('--help returns the help', () => {
    expect(parse(['status', '--help']).kind).toBe('help');
  });
});
