/**
 * The `logout` form (docs/sign-in.md#sign-in-logout, docs/cli.md#cli-forms): `logout [options] <url>`
 * and `logout [options] --all` parse into the options of runLogout; everything else is refused
 * with a literal diagnostic that echoes no value.
 */
import { describe, expect, it } from 'vitest';
import { parse } from './parse.js';

const URL = 'https://mcp.example.com/mcp?key=SECRET-URL';
const KEY = 'ab'.repeat(32);

function logout(argv: readonly string[], env: Record<string, string> = {}) {
  const result = parse(['logout', ...argv], env);
  if (result.kind !== 'logout') expect.fail(`expected logout, got ${JSON.stringify(result)}`);
  return result.options;
}

function refused(argv: readonly string[], env: Record<string, string> = {}): string {
  const result = parse(['logout', ...argv], env);
  if (result.kind !== 'error') expect.fail(`expected an error, got ${result.kind}`);
  expect(result.message).not.toContain('SECRET');
  expect(result.message).not.toContain('example.com');
  return result.message;
}

describe('logout [options] <url>', () => {
  it('the defaults of the identity and the store', () => {
    expect(logout([URL])).toEqual({
      url: URL,
      all: false,
      account: 'default',
      redirectPort: 41894,
      tokenStore: 'auto',
      noRevoke: false,
      logLevel: 'info',
      bridgeName: 'mcp-bridge-vscode',
    });
  });

  it('takes --account, --redirect-port, --token-store, --token-key-file and --log-level', () => {
    expect(
      logout([
        '--account',
        'work',
        '--redirect-port=5000',
        '--token-store',
        'file',
        '--token-key-file',
        '/keys/token.hex',
        '--log-level',
        'debug',
        URL,
      ]),
    ).toEqual({
      url: URL,
      all: false,
      account: 'work',
      redirectPort: 5000,
      tokenStore: 'file',
      tokenKeyFile: '/keys/token.hex',
      noRevoke: false,
      logLevel: 'debug',
      bridgeName: 'mcp-bridge-vscode',
    });
  });

  it('an http URL of a loopback host is accepted', () => {
    expect(logout(['http://127.0.0.1:8080/mcp']).url).toBe('http://127.0.0.1:8080/mcp');
  });

  it('--token-store file takes the key of MCP_BRIDGE_TOKEN_KEY', () => {
    expect(logout(['--token-store', 'file', URL], { MCP_BRIDGE_TOKEN_KEY: KEY }).tokenStore).toBe('file');
  });

  it('--help returns the help', () => {
    expect(parse(['logout', '--help', URL]).kind).toBe('help');
  });

  it('--no-revoke deletes without revocation; it takes no value', () => {
    expect(logout(['--no-revoke', URL]).noRevoke).toBe(true);
    expect(logout(['--no-revoke', '--all']).noRevoke).toBe(true);
    expect(refused(['--no-revoke=SECRET', URL])).toBe('the option --no-revoke takes no value');
  });

  it('--json: logout does not take it', () => {
    expect(refused(['--json', URL])).toBe('the option --json cannot be used here: logout does not take it');
  });
});

describe('logout [options] --all', () => {
  it('has no URL', () => {
    expect(logout(['--all'])).toEqual({
      all: true,
      account: 'default',
      redirectPort: 41894,
      tokenStore: 'auto',
      noRevoke: false,
      logLevel: 'info',
      bridgeName: 'mcp-bridge-vscode',
    });
  });

  it('takes the store options', () => {
    expect(logout(['--token-store', 'memory', '--all'])).toMatchObject({ all: true, tokenStore: 'memory' });
  });

  it('with a URL is a conflict', () => {
    expect(refused(['--all', URL])).toBe(
      'the option --all cannot be used here: logout takes the URL of an upstream server or --all, not both',
    );
  });

  it('with --account is a conflict', () => {
    expect(refused(['--all', '--account', 'work'])).toBe(
      'the option --account cannot be used here: --all deletes the stored sign-ins of every account',
    );
  });

  it('--all=yes is refused', () => {
    expect(refused(['--all=SECRET'])).toBe('the option --all takes no value');
  });
});

describe('refused logout command lines', () => {
  it('without a URL and without --all', () => {
    const missing =
      'the URL of the upstream server is missing: give it after the options of logout, or give --all';
    expect(refused([])).toBe(missing);
    expect(refused(['--account', 'work'])).toBe(missing);
  });

  it.each([
    ['--name', 'SECRET'],
    ['--discover-timeout', '5'],
    ['--max-line-bytes', '5'],
    ['--header', 'X-A:SECRET'],
    ['--header-env', 'X-A=SECRET'],
    ['--max-response-bytes', '5'],
    ['--client-id', 'SECRET'],
    ['--client-issuer', 'https://SECRET.example.com'],
    ['--client-metadata-url', 'https://SECRET.example.com/c.json'],
    ['--no-browser'],
    ['--sign-in-timeout', '5'],
  ])('%s: logout does not take it', (...option) => {
    expect(refused([...option, URL])).toBe(
      `the option ${option[0] ?? ''} cannot be used here: logout does not take it`,
    );
  });

  it('an upstream command', () => {
    expect(refused(['--', 'SECRET-CMD'])).toBe(
      'an argument is not an option: give the options of logout first, then the URL of the upstream server, or --all',
    );
  });

  it('a stray argument', () => {
    expect(refused(['SECRET-1', URL])).toBe(
      'an argument is not an option: give the options of logout first, then the URL of the upstream server, or --all',
    );
  });

  it('an argument after the URL', () => {
    expect(refused([URL, '--account', 'SECRET'])).toBe(
      'an argument follows the URL of the upstream server: the URL must be the last argument',
    );
  });

  it('a URL that the URL form refuses', () => {
    expect(refused(['http://SECRET.example.com/mcp'])).toBe(
      'the URL of the upstream server is not valid: http is allowed only for a loopback host ' +
        '(localhost, *.localhost, 127.0.0.0/8 or [::1]); give an https URL',
    );
  });

  it('an unknown option is named without its value', () => {
    expect(refused(['--token=SECRET', URL])).toBe('the option --token is not known');
  });

  it('the store options are checked as in the URL form', () => {
    expect(refused(['--token-store', 'file', URL])).toBe(
      '--token-store file needs a key: set the environment variable MCP_BRIDGE_TOKEN_KEY, or give --token-key-file',
    );
    expect(refused(['--token-store', 'memory', '--token-key-file', '/SECRET', URL])).toBe(
      'the option --token-key-file cannot be used here: --token-store memory uses no key',
    );
    expect(refused(['--account', 'SECRET|1', URL])).toBe(
      'the value of --account is not valid: give 1 to 64 characters of A-Z, a-z, 0-9, ".", "_", "@", "+" and "-"',
    );
    expect(refused([URL], { MCP_BRIDGE_TOKEN_KEY: 'SECRET' })).toBe(
      'the environment variable MCP_BRIDGE_TOKEN_KEY is not valid: give 64 hexadecimal digits',
    );
  });

  it('an unusable --ca-file', () => {
    expect(refused(['--ca-file', '/nonexistent/SECRET/ca.pem', URL])).toMatch(
      /^cannot use the CA certificates of --ca-file: /,
    );
  });

  it('"logout" after an option is not the logout form', () => {
    expect(parse(['--log-level', 'info', 'logout', URL]).kind).toBe('error');
  });
});

describe('logout [options] --idp <issuer>', () => {
  it('takes the issuer of the IdP, with --account', () => {
    expect(logout(['--idp', 'https://idp.example.org', '--account', 'work'])).toEqual({
      all: false,
      idp: 'https://idp.example.org',
      account: 'work',
      redirectPort: 41894,
      tokenStore: 'auto',
      noRevoke: false,
      logLevel: 'info',
      bridgeName: 'mcp-bridge-vscode',
    });
  });

  it('refuses --idp with a URL or with --all, and an issuer that is not an http(s) URL', () => {
    expect(refused(['--idp', 'https://idp.example.org', URL])).toBe(
      'the option --idp cannot be used here: logout takes the URL of an upstream server, --idp or --all, only one of them',
    );
    expect(refused(['--idp', 'https://idp.example.org', '--all'])).toBe(
      'the option --idp cannot be used here: logout takes the URL of an upstream server, --idp or --all, only one of them',
    );
    expect(refused(['--idp', 'ftp://idp.example.org/SECRET'])).toBe(
      'the value of --idp is not valid: give the issuer URL of the IdP (an http or https URL)',
    );
  });

  it('is refused outside logout', () => {
    expect(parse(['--idp', 'https://idp.example.org', URL], {})).toMatchObject({ kind: 'error' });
  });
});
