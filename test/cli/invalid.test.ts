/**
 * Invalid command lines: each one is refused (exit code 2), and the diagnostic never holds an
 * option value, a header value, the URL or an unexpected argument (docs/cli.md#cli-forms).
 * Every such value below holds the marker SECRET.
 */
import { describe, expect, it } from 'vitest';
import { parse } from './parse.js';

const URL = 'https://mcp.example.com/mcp?key=SECRET-URL-1';
const ENV = { EMPTY: '', BLANK: '  ', CTRL: 'SECRET-ENV\u0007', GOOD: 'SECRET-ENV-2' };

const INVALID: readonly (readonly [string, readonly string[]])[] = [
  ['no argument', []],
  ['only options', ['--name', 'SECRET-1']],
  ['"--" without a command', ['--name=SECRET-1', '--']],
  ['a stray argument', ['SECRET-1', '--', 'node']],
  ['a stray argument after options', ['--name', 'n', 'SECRET-1']],
  ['a stray "-"', ['-', 'SECRET-1']],
  ['logout with a stray argument', ['logout', 'SECRET-1', URL]],
  ['two URLs', [URL, 'https://SECRET-2.example.com/']],
  ['an option after the URL', [URL, '--name', 'SECRET-1']],
  ['a URL and "--"', [URL, '--', 'SECRET-CMD']],
  ['an unknown option with a value', ['--token=SECRET-1', URL]],
  ['an unknown option with a separate value', ['--client-secret', 'SECRET-1', URL]],
  ['--allow-http', ['--allow-http', 'http://SECRET.example.com/']],
  ['--insecure', ['--insecure', URL]],
  ['--upstream', ['--upstream=https://SECRET.example.com/']],
  ['--token-key', ['--token-key', 'SECRET-1', URL]],
  ['--client-id with a control character', ['--client-id=SECRET-1\u0007', URL]],
  ['a short option', ['-n', 'SECRET-1', '--', 'node']],
  ['a flag with a value', ['--help=SECRET-1']],
  ['--version with a value', ['--version=SECRET-1']],
  ['a missing value before "--"', ['--name', '--', 'SECRET-CMD']],
  ['a missing value at the end', ['--header']],
  ['an empty --name', ['--name=', '--', 'SECRET-CMD']],
  ['a bad --log-level', ['--log-level', 'SECRET-1', '--', 'node']],
  ['a negative --discover-timeout', ['--discover-timeout=-SECRET1', '--', 'node']],
  ['a hex --max-line-bytes', ['--max-line-bytes', '0xSECRET', '--', 'node']],
  ['a --max-response-bytes with a space', ['--max-response-bytes', '1 SECRET', URL]],
  ['a --discover-timeout over the range', ['--discover-timeout', '4294967296', '--', 'SECRET-CMD']],
  ['--header with an upstream command', ['--header', 'X-A:SECRET-1', '--', 'node']],
  ['--header-env with an upstream command', ['--header-env', 'X-A=GOOD', '--', 'node']],
  ['--ca-file with an upstream command', ['--ca-file', '/SECRET/ca.pem', '--', 'node']],
  ['--max-response-bytes with an upstream command', ['--max-response-bytes', '1', '--', 'SECRET-CMD']],
  ['http to a remote host', ['http://SECRET.example.com/mcp']],
  ['a look-alike loopback host', ['http://127.0.0.1.SECRET.com/mcp']],
  ['user info in the URL', ['https://user:SECRET-1@mcp.example.com/']],
  ['a fragment in the URL', ['https://mcp.example.com/#SECRET-1']],
  ['port 0 in the URL', ['https://mcp.example.com:0/SECRET-1']],
  ['no host in the URL', ['https:///SECRET-1']],
  ['a URL with a space', ['https://mcp.example.com/SECRET 1']],
  ['a URL of another scheme', ['ftp://mcp.example.com/SECRET-1']],
  ['a --header without ":"', ['--header', 'SECRET-1', URL]],
  ['a --header with a bad name', ['--header', 'X A:SECRET-1', URL]],
  ['a --header with an empty value', ['--name=SECRET-1', '--header', 'X-A: \t', URL]],
  ['a --header with a line break', ['--header', 'X-A:SECRET-1\r\nX-B: 2', URL]],
  ['a refused --header', ['--header', 'Host:SECRET-1.example.com', URL]],
  ['a refused mcp- --header', ['--header', 'Mcp-Method:SECRET-1', URL]],
  ['Proxy-Authorization', ['--header', 'Proxy-Authorization: Basic SECRET-1', URL]],
  ['a duplicate header', ['--header', 'X-A:SECRET-1', '--header', 'x-a:SECRET-2', URL]],
  ['a duplicate across both options', ['--header', 'X-A:SECRET-1', '--header-env', 'X-A=GOOD', URL]],
  ['a --header-env without "="', ['--header-env', 'SECRET-1', URL]],
  ['a --header-env with a bad variable name', ['--header-env', 'X-A=SECRET-1', URL]],
  ['an unset --header-env variable', ['--header-env', 'X-A=UNSET', URL]],
  ['an empty --header-env variable', ['--header-env', 'X-A=EMPTY', URL]],
  ['a blank --header-env variable', ['--header-env', 'X-A=BLANK', URL]],
  ['a --header-env variable with a control character', ['--header-env', 'X-A=CTRL', URL]],
  ['an empty --ca-file', ['--ca-file=', URL]],
  ['a missing --ca-file', ['--ca-file', '/nonexistent/SECRET-1/ca.pem', URL]],
];

describe('invalid command lines', () => {
  it('the table has at least 40 vectors', () => {
    expect(INVALID.length).toBeGreaterThanOrEqual(40);
  });

  it.each(INVALID)('%s is an error that echoes no value', (_title, argv) => {
    const result = parse(argv, ENV);
    expect(result.kind).toBe('error');
    const message = result.kind === 'error' ? result.message : '';
    expect(message).not.toContain('SECRET');
    expect(message).not.toContain('://');
    expect(message).not.toContain('example.com');
    expect(message).not.toMatch(/[\r\n]/);
  });
});
