import { describe, expect, it } from 'vitest';
import { error, serve } from './parse.js';

const URL = 'https://mcp.example.com/mcp';

describe('--header <name>:<value> (docs/http-upstream.md#http-headers)', () => {
  it('adds a header that is not secret, with its value trimmed of spaces and tabs', () => {
    expect(serve(['--header', 'X-Trace: \t abc \t', URL]).headers).toEqual([
      { name: 'X-Trace', value: 'abc', secret: false },
    ]);
  });

  it('splits at the first ":": the value may hold ":"', () => {
    expect(serve(['--header=X-Url:https://a.example/b', URL]).headers).toEqual([
      { name: 'X-Url', value: 'https://a.example/b', secret: false },
    ]);
  });

  it('keeps a tab inside the value', () => {
    expect(serve(['--header', 'X-A:a\tb', URL]).headers[0]?.value).toBe('a\tb');
  });

  it('accumulates over occurrences, in order', () => {
    expect(serve(['--header', 'X-A:1', '--header', 'X-B:2', URL]).headers.map((h) => h.name)).toEqual([
      'X-A',
      'X-B',
    ]);
  });

  it('without ":" is not valid', () => {
    expect(error(['--header', 'X-SECRET-123', URL])).toBe(
      'the value of --header is not valid: give it as <name>:<value>',
    );
  });

  it.each(['', ' X-A', 'X A', 'X-A(1)', 'X-Ä', 'X@A', 'X/A'])('name %j is not an HTTP token', (name) => {
    expect(error(['--header', `${name}:SECRET-123`, URL])).toMatch(
      /^the value of --header is not valid: give it as <name>:<value>, with a header name that is an HTTP token$/,
    );
  });

  it('an empty value is not valid', () => {
    expect(error(['--header', 'X-A: \t ', URL])).toBe(
      'the header X-A of --header is not valid: its value is empty',
    );
    expect(error(['--header=X-A:', URL])).toBe('the header X-A of --header is not valid: its value is empty');
  });

  it.each(['a\nb', 'a\rb', 'a\0b', 'a\x7fb', 'a\x1bb', 'a\u2028b'])(
    'a value with a control character (%j) is not valid',
    (value) => {
      expect(error(['--header', `X-A:SECRET-123${value}`, URL])).toBe(
        'the header X-A of --header is not valid: its value holds a control character',
      );
    },
  );
});

describe('--header-env <name>=<VAR>', () => {
  it('takes the value from the environment, trimmed, as a secret header', () => {
    expect(
      serve(['--header-env', 'Authorization=API_TOKEN', URL], { API_TOKEN: '  Bearer abc \n' }).headers,
    ).toEqual([{ name: 'Authorization', value: 'Bearer abc', secret: true }]);
  });

  it('headers of --header come first, then those of --header-env', () => {
    const options = serve(['--header-env', 'X-B=B', '--header', 'X-A:1', URL], { B: '2' });
    expect(options.headers).toEqual([
      { name: 'X-A', value: '1', secret: false },
      { name: 'X-B', value: '2', secret: true },
    ]);
  });

  it('an unset variable is an error that names the variable only', () => {
    expect(error(['--header-env', 'X-Key=MY_KEY', URL], {})).toBe(
      'the environment variable MY_KEY of --header-env is not set, or it is empty',
    );
  });

  it.each(['', '   ', '\t\n'])('an empty variable (%j) is an error', (value) => {
    expect(error(['--header-env', 'X-Key=MY_KEY', URL], { MY_KEY: value })).toBe(
      'the environment variable MY_KEY of --header-env is not set, or it is empty',
    );
  });

  it('a variable whose value is undefined counts as unset', () => {
    expect(error(['--header-env', 'X-Key=MY_KEY', URL], { MY_KEY: undefined })).toMatch(/is not set/);
  });

  it('a variable inherited from Object.prototype is not an environment variable', () => {
    expect(error(['--header-env', 'X-Key=toString', URL], {})).toMatch(/toString of --header-env is not set/);
  });

  it('a value with a control character is an invalid variable, and is not echoed', () => {
    const message = error(['--header-env', 'X-Key=MY_KEY', URL], { MY_KEY: 'SECRET\n123' });
    expect(message).toBe(
      'the environment variable MY_KEY is not valid: the value of the header X-Key holds a control character',
    );
  });

  it.each(['1KEY', 'MY-KEY', 'MY KEY', '', 'KEY=X', '$KEY'])('variable name %j is not valid', (variable) => {
    const message = error(['--header-env', `X-Key=${variable}`, URL], { [variable]: 'SECRET-123' });
    expect(message).toMatch(/^the value of --header-env is not valid: give it as <name>=<VAR>/);
  });

  it('without "=" is not valid', () => {
    expect(error(['--header-env', 'X-Key', URL])).toMatch(/^the value of --header-env is not valid/);
  });

  it('a header name that is not a token is not valid', () => {
    expect(error(['--header-env', 'X Key=K', URL], { K: 'v' })).toMatch(
      /^the value of --header-env is not valid/,
    );
  });
});

describe('refused header names', () => {
  const refused = [
    'host',
    'connection',
    'content-length',
    'transfer-encoding',
    'accept',
    'content-type',
    'accept-encoding',
    'dpop',
    'te',
    'trailer',
    'upgrade',
    'keep-alive',
    'proxy-connection',
    'expect',
    'proxy-authorization',
    'mcp-protocol-version',
    'mcp-method',
    'mcp-name',
    'mcp-session-id',
    'Mcp-Anything',
  ];

  it.each(refused.flatMap((name) => [name, name.toUpperCase()]))('%s is refused in --header', (name) => {
    expect(error(['--header', `${name}:SECRET-123`, URL])).toMatch(
      new RegExp(`^the header ${name} of --header is not permitted: `),
    );
  });

  it.each(refused)('%s is refused in --header-env', (name) => {
    expect(error(['--header-env', `${name}=K`, URL], { K: 'SECRET-123' })).toMatch(
      new RegExp(`^the header ${name} of --header-env is not permitted: `),
    );
  });

  it('Proxy-Authorization points to the proxy URL', () => {
    expect(error(['--header', 'Proxy-Authorization:Basic x', URL])).toMatch(/proxy URL/);
  });

  it('a name that only contains "mcp-" later is allowed', () => {
    expect(serve(['--header', 'X-Mcp-Client:1', URL]).headers).toHaveLength(1);
  });
});

describe('duplicate headers', () => {
  it('the same name twice in --header is an error, whatever the case', () => {
    expect(error(['--header', 'X-A:1', '--header', 'x-a:2', URL])).toBe(
      'the header x-a occurs more than one time in --header and --header-env',
    );
  });

  it('the same name in --header and --header-env is an error', () => {
    expect(
      error(['--header', 'Authorization:SECRET-1', '--header-env', 'AUTHORIZATION=T', URL], {
        T: 'SECRET-2',
      }),
    ).toBe('the header AUTHORIZATION occurs more than one time in --header and --header-env');
  });

  it('the same name twice in --header-env is an error', () => {
    expect(error(['--header-env', 'X-A=A', '--header-env', 'X-A=B', URL], { A: '1', B: '2' })).toMatch(
      /^the header X-A occurs more than one time/,
    );
  });
});

describe('credentials on the command line', () => {
  it.each(['Authorization', 'authorization', 'Cookie', 'X-API-Key', 'api-key'])(
    'a --header named %s adds a warning that names the header only',
    (name) => {
      const options = serve(['--header', `${name}: SECRET-123`, URL]);
      expect(options.warnings).toEqual([
        `the value of the header ${name} is on the command line, where other local users may see it: ` +
          'give it with --header-env instead',
      ]);
      expect(options.warnings.join()).not.toContain('SECRET');
    },
  );

  it('--header-env with a credential adds no warning', () => {
    expect(serve(['--header-env', 'Authorization=T', URL], { T: 'Bearer x' }).warnings).toEqual([]);
  });

  it('other header names add no warning', () => {
    expect(serve(['--header', 'X-Api-Version:2', URL]).warnings).toEqual([]);
  });
});
