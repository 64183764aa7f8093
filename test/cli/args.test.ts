import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/cli/args.js';
import { helpText } from '../../src/cli/help.js';
import { vscodeProfile } from '../../src/profiles/vscode.js';
import { error, parse, serve } from './parse.js';

const URL = 'https://mcp.example.com/mcp';
const MISSING = 'the upstream server is missing: give its URL, or put the upstream command after "--"';

describe('forms', () => {
  it('everything after "--" is the upstream command, unchanged (also --help, URLs and "--")', () => {
    const argv = [
      'node',
      'server.js',
      '--help',
      '--version',
      'https://x.example/',
      '--',
      '',
      '--name=x',
      '-v',
    ];
    expect(serve(['--', ...argv]).upstream).toEqual({ kind: 'command', argv });
  });

  it('a non-option argument with "://" is the URL of the upstream server', () => {
    expect(serve([URL]).upstream).toEqual({ kind: 'url', url: URL });
    expect(serve(['--name', 'n', URL]).upstream).toEqual({ kind: 'url', url: URL });
  });

  it('neither a URL nor "--": the upstream server is missing', () => {
    expect(error([])).toBe(MISSING);
    expect(error(['--name', 'n'])).toBe(MISSING);
  });

  it('"--" with no command after it: the upstream server is missing', () => {
    expect(error(['--'])).toBe(MISSING);
    expect(error(['--log-level', 'debug', '--'])).toBe(MISSING);
  });

  it('an empty command name is refused', () => {
    expect(error(['--', '', 'x'])).toMatch(/^the upstream command is not valid/);
  });

  it('both a URL and "--" is an error', () => {
    expect(error([URL, '--', 'node'])).toMatch(/^both a URL and an upstream command are given/);
  });

  it('the URL must be the last argument', () => {
    expect(error([URL, '--name', 'n'])).toMatch(/^an argument follows the URL/);
    expect(error([URL, 'https://other.example.com/'])).toMatch(/^an argument follows the URL/);
  });

  it('a non-option argument without "://" is an error that does not echo it', () => {
    expect(error(['server-SECRET-123', '--', 'node'])).toMatch(/^an argument is not an option: /);
    expect(error(['-', '--', 'node'])).toMatch(/^an argument is not an option: /);
  });

  it('logout is a form only as the first argument', () => {
    expect(parse(['logout', URL]).kind).toBe('logout');
    expect(error(['--log-level', 'info', 'logout', URL])).toMatch(/^an argument is not an option: /);
  });
});

describe('defaults', () => {
  it('the command form without options has the default settings', () => {
    expect(serve(['--', 'node'])).toEqual({
      upstream: { kind: 'command', argv: ['node'] },
      logLevel: 'info',
      discoverTimeoutMs: 60_000,
      maxLineBytes: 67_108_864,
      maxResponseBytes: 67_108_864,
      headers: [],
      warnings: [],
    });
  });

  it('the URL form without options has the default settings and no name, CA file or header', () => {
    const options = serve([URL]);
    expect(options).toEqual({
      upstream: { kind: 'url', url: URL },
      logLevel: 'info',
      discoverTimeoutMs: 60_000,
      maxLineBytes: 67_108_864,
      maxResponseBytes: 67_108_864,
      headers: [],
      warnings: [],
      signIn: {
        redirectPort: 41894,
        account: 'default',
        tokenStore: 'auto',
        noBrowser: false,
        noDpop: false,
        signInTimeoutMs: 300_000,
        sandbox: false,
        secretVariables: ['MCP_BRIDGE_CLIENT_SECRET', 'MCP_BRIDGE_IDP_CLIENT_SECRET', 'MCP_BRIDGE_TOKEN_KEY'],
      },
    });
    expect(Object.keys(options)).not.toContain('name');
    expect(Object.keys(options)).not.toContain('caFile');
  });

  it('DEFAULTS states the defaults of the reference', () => {
    expect(DEFAULTS).toEqual({
      logLevel: 'info',
      discoverTimeoutSeconds: 60,
      maxLineBytes: 67_108_864,
      maxResponseBytes: 67_108_864,
    });
  });
});

describe('option syntax', () => {
  it('"--opt value" and "--opt=value" give the same result', () => {
    const separate = serve(['--name', 'files', '--log-level', 'debug', '--discover-timeout', '5', '--', 'x']);
    const joined = serve(['--name=files', '--log-level=debug', '--discover-timeout=5', '--', 'x']);
    expect(joined).toEqual(separate);
    expect(joined).toMatchObject({ name: 'files', logLevel: 'debug', discoverTimeoutMs: 5000 });
  });

  it('a value after "=" may hold "=" and may start with "--"', () => {
    expect(serve(['--name=a=b==c', '--', 'x']).name).toBe('a=b==c');
    expect(serve(['--name=--x', '--', 'x']).name).toBe('--x');
  });

  it('a separate value may start with a single "-"', () => {
    expect(serve(['--name', '-x', '--', 'x']).name).toBe('-x');
    expect(serve(['--name', '-', '--', 'x']).name).toBe('-');
  });

  it('a value is taken as written: quotes around it are kept', () => {
    expect(serve(['--name', '"quoted"', '--', 'x']).name).toBe('"quoted"');
    expect(serve(["--name='quoted'", '--', 'x']).name).toBe("'quoted'");
    expect(serve(['--name="', '--', 'x']).name).toBe('"');
    expect(error(['--header="X-A:1"', 'https://mcp.example.com/'])).toMatch(/HTTP token/);
  });

  it('a separate value may not start with "--": "--name -- cmd" is a missing value', () => {
    expect(error(['--name', '--', 'cmd'])).toBe('the option --name needs a value');
    expect(error(['--name', '--log-level', 'info', '--', 'cmd'])).toBe('the option --name needs a value');
  });

  it('an option at the end without its value is a missing value', () => {
    expect(error(['--log-level'])).toBe('the option --log-level needs a value');
    expect(error(['--header'])).toBe('the option --header needs a value');
  });

  it('the last occurrence of an option wins', () => {
    const options = serve([
      '--name',
      'a',
      '--name=b',
      '--log-level',
      'err',
      '--log-level',
      'warn',
      '--',
      'x',
    ]);
    expect(options).toMatchObject({ name: 'b', logLevel: 'warn' });
    expect(serve(['--max-line-bytes=1', '--max-line-bytes=2', '--', 'x']).maxLineBytes).toBe(2);
  });

  it('every occurrence of an option is checked, not only the last', () => {
    expect(error(['--log-level', 'loud', '--log-level', 'info', '--', 'x'])).toMatch(
      /^the value of --log-level/,
    );
  });

  it('options that take a value never take the next argument when it starts with "--"', () => {
    expect(error(['--ca-file', '--help'])).toBe('the option --ca-file needs a value');
  });
});

describe('--help and --version', () => {
  it('--help returns the help text', () => {
    expect(parse(['--help'])).toEqual({ kind: 'help', text: helpText(vscodeProfile) });
  });

  it('--help returns at once, whatever follows', () => {
    expect(parse(['--name', 'n', '--help', 'not-an-option', '--bogus']).kind).toBe('help');
  });

  it('--version returns "mcp-bridge-vscode <version>"', () => {
    expect(parse(['--version'])).toEqual({ kind: 'version', text: 'mcp-bridge-vscode 9.8.7' });
    expect(parse(['--version', '--help']).kind).toBe('version');
  });

  it('--help after "--" belongs to the command', () => {
    expect(serve(['--', 'node', '--help']).upstream).toEqual({ kind: 'command', argv: ['node', '--help'] });
  });

  it('flags reject "=value"', () => {
    expect(error(['--help=yes'])).toBe('the option --help takes no value');
    expect(error(['--version=SECRET-123'])).toBe('the option --version takes no value');
  });

  it('options are read from left to right: an error before --help is reported', () => {
    expect(error(['--bogus', '--help'])).toBe('the option --bogus is not known');
  });
});

describe('unknown options', () => {
  it.each([
    '--allow-http',
    '--insecure',
    '--client-secret',
    '--token-key',
    '--upstream',
    '--headless',
    '--no-name',
    '--Name',
    '--logLevel',
    '-h',
    '-v',
  ])('%s is not known', (option) => {
    expect(error([option, '--', 'x'])).toBe(`the option ${option} is not known`);
  });

  it('an unknown option written with "=value" is named without its value', () => {
    expect(error(['--token=SECRET-123', URL])).toBe('the option --token is not known');
  });

  it('an argument that does not look like an option name is not echoed', () => {
    expect(error(['--SECRET_123.abc', '--', 'x'])).toBe(
      'an argument that starts with "-" is not a known option',
    );
    expect(error(['--=SECRET-123', '--', 'x'])).toBe(
      'an argument that starts with "-" is not a known option',
    );
    expect(error(['-SECRET', '--', 'x'])).toBe('an argument that starts with "-" is not a known option');
    expect(error(['-name', 'x', '--', 'x'])).toBe('an argument that starts with "-" is not a known option');
  });
});

describe('options of the URL form only', () => {
  it.each([
    ['--header', 'X-Trace:1'],
    ['--header-env', 'X-Key=KEY'],
    ['--max-response-bytes', '100'],
    ['--ca-file', '/etc/ssl/ca.pem'],
  ])('%s with an upstream command is a conflict with a hint', (option, value) => {
    expect(error([option, value, '--', 'node'], { KEY: 'v' })).toBe(
      `the option ${option} cannot be used here: it applies only to the URL of an upstream server, not to an upstream command`,
    );
  });

  it('options of both forms work with the URL form', () => {
    const options = serve([
      '--name=n',
      '--log-level=warn',
      '--discover-timeout=9',
      '--max-line-bytes=77',
      URL,
    ]);
    expect(options).toMatchObject({ name: 'n', logLevel: 'warn', discoverTimeoutMs: 9000, maxLineBytes: 77 });
  });
});
