/**
 * The sign-in options of the URL form (docs/cli.md#cli-forms, docs/sign-in.md#sign-in-registration,
 * docs/sign-in.md#sign-in-stores, docs/sign-in.md#sign-in-sandbox, docs/sign-in.md#sign-in-urls): values, defaults, the environment variables, and every
 * conflict, with the literal diagnostic. No diagnostic holds a value (each value below holds
 * SECRET).
 */
import { describe, expect, it } from 'vitest';
import { error, serve } from './parse.js';

const URL = 'https://mcp.example.com/mcp';
const KEY = '0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789abcdef';

const signIn = (argv: readonly string[], env: Record<string, string> = {}) => {
  const options = serve([...argv, URL], env).signIn;
  if (options === undefined) expect.fail('expected sign-in options');
  return options;
};

/** The diagnostic, after checking that it echoes no value. */
function refused(argv: readonly string[], env: Record<string, string> = {}): string {
  const message = error(argv, env);
  expect(message.replaceAll('MCP_BRIDGE_CLIENT_SECRET', '')).not.toContain('SECRET');
  expect(message).not.toContain('example.com');
  return message;
}

/** One use of each sign-in option (every value that could leak holds SECRET). */
const SIGN_IN_OPTIONS: ReadonlyArray<readonly string[]> = [
  ['--client-id', 'SECRET-c'],
  ['--client-issuer', 'https://SECRET.example.com'],
  ['--client-metadata-url', 'https://SECRET.example.com/c.json'],
  ['--redirect-port', '4000'],
  ['--account', 'work'],
  ['--token-store', 'memory'],
  ['--token-key-file', '/SECRET/k'],
  ['--no-browser'],
  ['--no-dpop'],
  ['--sign-in-timeout', '10'],
  ['--grant', 'authorization-code'],
];

describe('values of the sign-in options', () => {
  it('the defaults: port 41894, account "default", store auto, browser, 300 s, no sandbox', () => {
    expect(signIn([])).toEqual({
      redirectPort: 41894,
      account: 'default',
      tokenStore: 'auto',
      noBrowser: false,
      noDpop: false,
      signInTimeoutMs: 300_000,
      sandbox: false,
      secretVariables: ['MCP_BRIDGE_CLIENT_SECRET', 'MCP_BRIDGE_IDP_CLIENT_SECRET', 'MCP_BRIDGE_TOKEN_KEY'],
    });
  });

  it('every option is taken as given', () => {
    expect(
      signIn([
        '--client-id',
        'bridge client 7',
        '--client-issuer=https://login.example.com/tenant',
        '--redirect-port',
        '65535',
        '--account',
        'a.b_c@d+e-f',
        '--token-store',
        'memory',
        '--no-browser',
        '--no-dpop',
        '--sign-in-timeout=1',
      ]),
    ).toEqual({
      clientId: 'bridge client 7',
      clientIssuer: 'https://login.example.com/tenant',
      redirectPort: 65535,
      account: 'a.b_c@d+e-f',
      tokenStore: 'memory',
      noBrowser: true,
      noDpop: true,
      signInTimeoutMs: 1000,
      sandbox: false,
      secretVariables: ['MCP_BRIDGE_CLIENT_SECRET', 'MCP_BRIDGE_IDP_CLIENT_SECRET', 'MCP_BRIDGE_TOKEN_KEY'],
    });
  });

  it.each(['auto', 'keychain', 'file', 'memory'])('--token-store %s is accepted', (store) => {
    expect(signIn(['--token-store', store], { MCP_BRIDGE_TOKEN_KEY: KEY }).tokenStore).toBe(store);
  });

  it('--client-metadata-url takes an https URL with a path', () => {
    expect(
      signIn(['--client-metadata-url', 'https://cdn.example.com/apps/client.json']).clientMetadataUrl,
    ).toBe('https://cdn.example.com/apps/client.json');
  });

  it('--client-metadata-url none turns the document off, and is refused in another letter case', () => {
    expect(signIn(['--client-metadata-url', 'none']).clientMetadataUrl).toBe('none');
    expect(() => signIn(['--client-metadata-url', 'None'])).toThrow(
      'the value of --client-metadata-url is not valid: it cannot be read as a URL',
    );
  });

  it.each([
    'http://127.0.0.1:9000',
    'http://localhost:8080/realms/x',
    'http://[::1]/',
    'https://a.example.com',
  ])('--client-issuer %s is accepted with a loopback MCP URL', (issuer) => {
    const options = serve([
      '--client-id',
      'c',
      '--client-issuer',
      issuer,
      'https://127.0.0.1:8443/mcp',
    ]).signIn;
    expect(options?.clientIssuer).toBe(issuer);
  });

  it('--client-issuer https is accepted with a remote MCP URL', () => {
    expect(signIn(['--client-id', 'c', '--client-issuer', 'https://a.example.com']).clientIssuer).toBe(
      'https://a.example.com',
    );
  });

  it('--redirect-port 1 and --account of 64 characters are the bounds', () => {
    const account = 'a'.repeat(64);
    expect(signIn(['--redirect-port', '1', '--account', account])).toMatchObject({
      redirectPort: 1,
      account,
    });
  });

  it('--sign-in-timeout 4294967295 is the upper bound', () => {
    expect(signIn(['--sign-in-timeout', '4294967295']).signInTimeoutMs).toBe(4_294_967_295_000);
  });

  it('the last --account wins', () => {
    expect(signIn(['--account', 'one', '--account=two']).account).toBe('two');
  });

  it('--token-key-file goes with the file store and with auto', () => {
    expect(signIn(['--token-store', 'file', '--token-key-file', '/keys/k.hex'])).toMatchObject({
      tokenStore: 'file',
      tokenKeyFile: '/keys/k.hex',
    });
    expect(signIn(['--token-key-file', '/keys/k.hex']).tokenKeyFile).toBe('/keys/k.hex');
  });
});

describe('--grant (docs/sign-in.md#sign-in-grants)', () => {
  it('authorization-code is the default: the options are those without --grant', () => {
    expect(signIn(['--grant', 'authorization-code'])).toEqual(signIn([]));
    expect(signIn(['--grant', 'authorization-code']).grant).toBeUndefined();
  });

  it('device-code is the device authorization grant (docs/sign-in.md#sign-in-device-code)', () => {
    expect(signIn(['--grant', 'device-code']).grant).toBe('device-code');
    expect(signIn(['--grant', 'id-jag', '--grant', 'device-code']).grant).toBe('device-code');
  });

  const ISSUER = ['--client-issuer', 'https://SECRET.example.com'];
  const IDP = ['--idp-issuer', 'https://SECRET.example.com/idp', '--idp-client-id', 'SECRET-i'];

  it('id-jag takes the IdP options and MCP_BRIDGE_IDP_CLIENT_SECRET (docs/sign-in.md#sign-in-id-jag)', () => {
    const argv = ['--grant', 'id-jag', '--client-id', 'c', ...ISSUER, ...IDP];
    const files = ['--idp-token-endpoint', 'https://SECRET.example.com/t', '--id-token-file', '/SECRET/t'];
    const env = { MCP_BRIDGE_IDP_CLIENT_SECRET: ' SECRET-i ', MCP_BRIDGE_CLIENT_SECRET: 'SECRET-s' };
    expect(signIn([...argv, ...files], env)).toMatchObject({
      grant: 'id-jag',
      clientId: 'c',
      clientSecret: 'SECRET-s',
      idp: {
        issuer: 'https://SECRET.example.com/idp',
        clientId: 'SECRET-i',
        clientSecret: 'SECRET-i',
        tokenEndpoint: 'https://SECRET.example.com/t',
        idTokenFile: '/SECRET/t',
      },
    });
    expect(signIn(argv).idp).toEqual({ issuer: 'https://SECRET.example.com/idp', clientId: 'SECRET-i' });
    expect(signIn(argv).secretVariables).toContain('MCP_BRIDGE_IDP_CLIENT_SECRET');
  });

  it('MCP_BRIDGE_IDP_CLIENT_SECRET is read for id-jag only', () => {
    const options = signIn([], { MCP_BRIDGE_IDP_CLIENT_SECRET: 'SECRET-i' });
    expect(options.idp).toBeUndefined();
    expect(JSON.stringify(options)).not.toContain('SECRET-i');
  });

  it('client-credentials takes the secret of MCP_BRIDGE_CLIENT_SECRET, or --client-key-file', () => {
    const secret = { MCP_BRIDGE_CLIENT_SECRET: 'SECRET-s' };
    expect(signIn(['--grant', 'client-credentials', '--client-id', 'c', ...ISSUER], secret)).toMatchObject({
      grant: 'client-credentials',
      clientId: 'c',
      clientSecret: 'SECRET-s',
    });
    const keyed = signIn([
      '--grant',
      'client-credentials',
      '--client-id',
      'c',
      ...ISSUER,
      '--client-key-file',
      '/SECRET/k',
    ]);
    expect(keyed).toMatchObject({ grant: 'client-credentials', clientKeyFile: '/SECRET/k' });
    expect(keyed.clientSecret).toBeUndefined();
  });

  it('jwt-bearer takes --assertion-file, with or without a client credential', () => {
    expect(
      signIn(['--grant', 'jwt-bearer', '--client-id', 'c', ...ISSUER, '--assertion-file', '/SECRET/a']),
    ).toMatchObject({ grant: 'jwt-bearer', clientId: 'c', assertionFile: '/SECRET/a' });
  });

  it.each([
    [
      ['--grant', 'client-credentials'],
      {},
      'the option --grant cannot be used here: --grant client-credentials needs --client-id',
    ],
    [
      ['--grant', 'jwt-bearer', '--client-id', 'c', '--assertion-file', '/SECRET/a'],
      {},
      'the option --grant cannot be used here: --grant jwt-bearer needs --client-issuer, the only authorization server its credentials are sent to',
    ],
    [
      ['--grant', 'client-credentials', '--client-id', 'c', ...ISSUER],
      {},
      '--grant client-credentials needs a client credential: set the environment variable MCP_BRIDGE_CLIENT_SECRET, or give --client-key-file',
    ],
    [
      ['--grant', 'client-credentials', '--client-id', 'c', ...ISSUER, '--client-key-file', '/SECRET/k'],
      { MCP_BRIDGE_CLIENT_SECRET: 'SECRET-s' },
      'the option --client-key-file cannot be used here: the environment variable MCP_BRIDGE_CLIENT_SECRET gives a client secret already; give only one of them',
    ],
    [
      ['--grant', 'jwt-bearer', '--client-id', 'c', ...ISSUER],
      {},
      '--grant jwt-bearer needs --assertion-file',
    ],
    [
      ['--client-key-file', '/SECRET/k'],
      {},
      'the option --client-key-file cannot be used here: it needs --grant client-credentials, --grant jwt-bearer or --grant id-jag',
    ],
    [
      ['--grant', 'id-jag', '--client-id', 'c', ...IDP],
      {},
      'the option --grant cannot be used here: --grant id-jag needs --client-issuer, the only authorization server its credentials are sent to',
    ],
    [
      ['--grant', 'id-jag', '--client-id', 'c', ...ISSUER, '--idp-client-id', 'SECRET-i'],
      {},
      'the option --grant cannot be used here: --grant id-jag needs --idp-issuer',
    ],
    [
      ['--grant', 'id-jag', '--client-id', 'c', ...ISSUER, '--idp-issuer', 'https://SECRET.example.com'],
      {},
      'the option --grant cannot be used here: --grant id-jag needs --idp-client-id',
    ],
    [
      ['--grant', 'jwt-bearer', '--client-id', 'c', ...ISSUER, '--assertion-file', '/a', ...IDP],
      {},
      'the option --idp-issuer cannot be used here: it needs --grant id-jag',
    ],
    [
      ['--id-token-file', '/SECRET/t'],
      {},
      'the option --id-token-file cannot be used here: it needs --grant id-jag',
    ],
    [
      ['--grant', 'id-jag', '--client-id', 'c', ...ISSUER, ...IDP, '--assertion-file', '/SECRET/a'],
      {},
      'the option --assertion-file cannot be used here: it needs --grant jwt-bearer',
    ],
    [
      ['--grant', 'id-jag', '--client-id', 'c', ...ISSUER, '--idp-issuer', 'http://SECRET.example.com'],
      {},
      'the value of --idp-issuer is not valid: it is not an https URL, and http is allowed only for a loopback host',
    ],
    [
      ['--grant', 'client-credentials', '--client-id', 'c', ...ISSUER, '--assertion-file', '/SECRET/a'],
      { MCP_BRIDGE_CLIENT_SECRET: 'SECRET-s' },
      'the option --assertion-file cannot be used here: it needs --grant jwt-bearer',
    ],
    [
      ['--grant', 'jwt-bearer', '--client-id', 'c', ...ISSUER, '--assertion-file', ''],
      {},
      'the value of --assertion-file is not valid: it must not be empty',
    ],
  ] as const)('refuses %j', (argv, env, diagnostic) => {
    expect(refused([...argv, URL], env)).toBe(diagnostic);
  });

  it('an unknown grant, or another letter case, names the grants', () => {
    const expected =
      'the value of --grant is not valid: give authorization-code, client-credentials, jwt-bearer, id-jag, device-code';
    expect(refused(['--grant', 'SECRET', URL])).toBe(expected);
    expect(refused(['--grant', 'Authorization-Code', URL])).toBe(expected);
  });
});

describe('environment variables of the sign-in', () => {
  it('MCP_BRIDGE_TOKEN_KEY is trimmed and kept', () => {
    expect(signIn([], { MCP_BRIDGE_TOKEN_KEY: ` \t${KEY} ` }).tokenKey).toBe(KEY);
  });

  it('an empty or blank MCP_BRIDGE_TOKEN_KEY is unset', () => {
    expect(Object.keys(signIn([], { MCP_BRIDGE_TOKEN_KEY: '' }))).not.toContain('tokenKey');
    expect(Object.keys(signIn([], { MCP_BRIDGE_TOKEN_KEY: '  ' }))).not.toContain('tokenKey');
    expect(refused(['--token-store', 'file', URL], { MCP_BRIDGE_TOKEN_KEY: ' ' })).toBe(
      '--token-store file needs a key: set the environment variable MCP_BRIDGE_TOKEN_KEY, or give --token-key-file',
    );
  });

  it('MCP_BRIDGE_CLIENT_SECRET is trimmed and goes with --client-id and --client-issuer', () => {
    const options = signIn(['--client-id', 'c', '--client-issuer', 'https://as.example.com'], {
      MCP_BRIDGE_CLIENT_SECRET: ' s3cret ',
    });
    expect(options.clientSecret).toBe('s3cret');
  });

  it('MCP_BRIDGE_CLIENT_SECRET without --client-id is not used', () => {
    expect(Object.keys(signIn([], { MCP_BRIDGE_CLIENT_SECRET: 's3cret' }))).not.toContain('clientSecret');
  });

  it('an empty MCP_BRIDGE_CLIENT_SECRET is unset: --client-id needs no --client-issuer then', () => {
    expect(Object.keys(signIn(['--client-id', 'c'], { MCP_BRIDGE_CLIENT_SECRET: ' ' }))).not.toContain(
      'clientSecret',
    );
  });

  it.each([
    ['1', true],
    [' 1\t', true],
    ['0', false],
    ['true', false],
    ['', false],
    ['11', false],
  ])('SANDBOX_RUNTIME=%j gives sandbox %s', (value, expected) => {
    expect(signIn([], { SANDBOX_RUNTIME: value }).sandbox).toBe(expected);
  });

  it('the variables of --header-env are secret variables for the browser', () => {
    expect(signIn(['--header-env', 'X-Team=TEAM_TOKEN'], { TEAM_TOKEN: 't' }).secretVariables).toEqual([
      'TEAM_TOKEN',
      'MCP_BRIDGE_CLIENT_SECRET',
      'MCP_BRIDGE_IDP_CLIENT_SECRET',
      'MCP_BRIDGE_TOKEN_KEY',
    ]);
  });
});

describe('invalid values of the sign-in options', () => {
  it.each([
    [
      ['--client-id', ''],
      'the value of --client-id is not valid: give the client ID in visible ASCII characters and spaces',
    ],
    [
      ['--client-id', 'SECRET\u00e9'],
      'the value of --client-id is not valid: give the client ID in visible ASCII characters and spaces',
    ],
    [
      ['--client-id', 'SECRET\t1'],
      'the value of --client-id is not valid: give the client ID in visible ASCII characters and spaces',
    ],
    [
      ['--redirect-port', '0'],
      'the value of --redirect-port is not valid: give a whole number of a port from 1 to 65535, in decimal digits only',
    ],
    [
      ['--redirect-port', '65536'],
      'the value of --redirect-port is not valid: give a whole number of a port from 1 to 65535, in decimal digits only',
    ],
    [
      ['--redirect-port', '+80'],
      'the value of --redirect-port is not valid: give a whole number of a port from 1 to 65535, in decimal digits only',
    ],
    [
      ['--account', ''],
      'the value of --account is not valid: give 1 to 64 characters of A-Z, a-z, 0-9, ".", "_", "@", "+" and "-"',
    ],
    [
      ['--account', 'a'.repeat(65)],
      'the value of --account is not valid: give 1 to 64 characters of A-Z, a-z, 0-9, ".", "_", "@", "+" and "-"',
    ],
    [
      ['--account', 'SECRET|x'],
      'the value of --account is not valid: give 1 to 64 characters of A-Z, a-z, 0-9, ".", "_", "@", "+" and "-"',
    ],
    [
      ['--account', 'SECRET x'],
      'the value of --account is not valid: give 1 to 64 characters of A-Z, a-z, 0-9, ".", "_", "@", "+" and "-"',
    ],
    [
      ['--token-store', 'SECRET'],
      'the value of --token-store is not valid: give auto, keychain, file or memory',
    ],
    [
      ['--token-store', 'Memory'],
      'the value of --token-store is not valid: give auto, keychain, file or memory',
    ],
    [['--token-key-file', ''], 'the value of --token-key-file is not valid: it must not be empty'],
    [
      ['--sign-in-timeout', '0'],
      'the value of --sign-in-timeout is not valid: give a whole number of seconds from 1 to 4294967295, in decimal digits only',
    ],
    [
      ['--sign-in-timeout', '4294967296'],
      'the value of --sign-in-timeout is not valid: give a whole number of seconds from 1 to 4294967295, in decimal digits only',
    ],
    [['--no-browser=SECRET'], 'the option --no-browser takes no value'],
    [
      ['--client-id', 'c', '--client-issuer', 'http://SECRET.example.com/'],
      'the value of --client-issuer is not valid: it is not an https URL, and http is allowed only for a loopback host',
    ],
    [
      ['--client-id', 'c', '--client-issuer', 'http://127.0.0.1:9/SECRET'],
      'the value of --client-issuer is not valid: it is http on a loopback host, which only a loopback MCP URL allows',
    ],
    [
      ['--client-id', 'c', '--client-issuer', 'http://127.1:9/SECRET'],
      'the value of --client-issuer is not valid: it is not an https URL, and http is allowed only for a loopback host',
    ],
    [
      ['--client-id', 'c', '--client-issuer', 'https://user:SECRET@as.example.com/'],
      'the value of --client-issuer is not valid: it holds user information',
    ],
    [
      ['--client-id', 'c', '--client-issuer', 'https://as.example.com/?t=SECRET'],
      'the value of --client-issuer is not valid: it has a query',
    ],
    [
      ['--client-id', 'c', '--client-issuer', 'https://as.example.com/#SECRET'],
      'the value of --client-issuer is not valid: it has a fragment',
    ],
    [
      ['--client-id', 'c', '--client-issuer', 'https:///SECRET'],
      'the value of --client-issuer is not valid: it has no host',
    ],
    [
      ['--client-id', 'c', '--client-issuer', 'SECRET'],
      'the value of --client-issuer is not valid: it is not an https URL',
    ],
    [
      ['--client-id', 'c', '--client-issuer', 'https://as.example.com/SECRET x'],
      'the value of --client-issuer is not valid: it holds a character outside visible ASCII',
    ],
    [
      ['--client-metadata-url', 'http://127.0.0.1/SECRET.json'],
      'the value of --client-metadata-url is not valid: give an https URL',
    ],
    [
      ['--client-metadata-url', 'https://SECRET.example.com/'],
      'the value of --client-metadata-url is not valid: it must have a path, such as /client.json',
    ],
    [
      ['--client-metadata-url', 'https://u:SECRET@cdn.example.com/c.json'],
      'the value of --client-metadata-url is not valid: it must not hold a user name or password',
    ],
    [
      ['--client-metadata-url', 'https://cdn.example.com/c.json#SECRET'],
      'the value of --client-metadata-url is not valid: it must not have a fragment ("#")',
    ],
  ])('%j: %s', (args, diagnostic) => {
    expect(refused([...args, URL])).toBe(diagnostic);
  });

  it('an invalid MCP_BRIDGE_TOKEN_KEY is named, never shown', () => {
    for (const value of ['SECRET', KEY.slice(1), `${KEY}0`, `${KEY.slice(1)}g`]) {
      expect(refused([URL], { MCP_BRIDGE_TOKEN_KEY: value })).toBe(
        'the environment variable MCP_BRIDGE_TOKEN_KEY is not valid: give 64 hexadecimal digits',
      );
    }
  });
});

describe('conflicts of the sign-in options', () => {
  it.each<[string, readonly string[], Record<string, string>, string]>([
    [
      '--client-issuer needs --client-id',
      ['--client-issuer', 'https://as.example.com', URL],
      {},
      'the option --client-issuer cannot be used here: it needs --client-id',
    ],
    [
      '--client-metadata-url excludes --client-id',
      ['--client-id', 'c', '--client-metadata-url', 'https://cdn.example.com/c.json', URL],
      {},
      'the option --client-metadata-url cannot be used here: it excludes --client-id',
    ],
    [
      'a client secret with --client-id needs --client-issuer',
      ['--client-id', 'c', URL],
      { MCP_BRIDGE_CLIENT_SECRET: 'SECRET-7' },
      'the option --client-id cannot be used here: the client secret of MCP_BRIDGE_CLIENT_SECRET needs ' +
        '--client-issuer, the only issuer it is sent to',
    ],
    [
      '--token-key-file with MCP_BRIDGE_TOKEN_KEY',
      ['--token-key-file', '/SECRET/k', URL],
      { MCP_BRIDGE_TOKEN_KEY: KEY },
      'the option --token-key-file cannot be used here: the environment variable MCP_BRIDGE_TOKEN_KEY ' +
        'gives the key already; give only one of them',
    ],
    [
      '--token-store file without a key',
      ['--token-store', 'file', URL],
      {},
      '--token-store file needs a key: set the environment variable MCP_BRIDGE_TOKEN_KEY, or give --token-key-file',
    ],
  ])('%s', (_title, argv, env, diagnostic) => {
    expect(refused(argv, env)).toBe(diagnostic);
  });

  it.each(['keychain', 'memory'])('--token-key-file with --token-store %s', (store) => {
    expect(refused(['--token-store', store, '--token-key-file', '/SECRET/k', URL])).toBe(
      `the option --token-key-file cannot be used here: --token-store ${store} uses no key`,
    );
  });
});

describe('a static authorization header turns the sign-in off (docs/http-upstream.md#http-headers)', () => {
  it('without sign-in options: no sign-in', () => {
    expect(Object.keys(serve(['--header', 'Authorization: Bearer SECRET', URL]))).not.toContain('signIn');
    expect(
      Object.keys(serve(['--header-env', 'authorization=AUTH', URL], { AUTH: 'Bearer SECRET' })),
    ).not.toContain('signIn');
  });

  it('another credential header leaves the sign-in on', () => {
    expect(serve(['--header-env', 'X-Api-Key=KEY', URL], { KEY: 'SECRET' }).signIn).toBeDefined();
  });

  it.each(SIGN_IN_OPTIONS)('%s with --header authorization is a conflict', (...option) => {
    const name = option[0] ?? '';
    expect(refused(['--header', 'Authorization: Bearer SECRET', ...option, URL])).toBe(
      `the option ${name} cannot be used here: a static authorization header (--header or --header-env) ` +
        'turns the sign-in off',
    );
  });

  it.each(SIGN_IN_OPTIONS)('%s with --header-env AUTHORIZATION is a conflict', (...option) => {
    const name = option[0] ?? '';
    expect(refused([...option, '--header-env', 'AUTHORIZATION=AUTH', URL], { AUTH: 'Bearer SECRET' })).toBe(
      `the option ${name} cannot be used here: a static authorization header (--header or --header-env) ` +
        'turns the sign-in off',
    );
  });

  it('with a static authorization header, the sign-in variables are not read', () => {
    expect(
      serve(['--header-env', 'Authorization=AUTH', URL], { AUTH: 'Bearer x', MCP_BRIDGE_TOKEN_KEY: 'SECRET' })
        .signIn,
    ).toBeUndefined();
  });
});

describe('sign-in options in the other forms', () => {
  it.each(SIGN_IN_OPTIONS)('%s with an upstream command is a conflict', (...option) => {
    expect(refused([...option, '--', 'node'])).toBe(
      `the option ${option[0] ?? ''} cannot be used here: it applies only to the URL of an upstream server, ` +
        'not to an upstream command',
    );
  });

  it('--all outside logout: only logout takes it', () => {
    expect(refused(['--all', URL])).toBe('the option --all cannot be used here: only logout takes it');
    expect(refused(['--all', '--', 'node'])).toBe(
      'the option --all cannot be used here: only logout takes it',
    );
  });

  it('the command form has no sign-in', () => {
    expect(Object.keys(serve(['--', 'node']))).not.toContain('signIn');
  });
});
