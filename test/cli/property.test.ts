import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from './parse.js';

/** Arguments that mix options, values, URLs and separators; every value holds the marker SECRET. */
const pieces = fc.constantFrom(
  '--',
  '-',
  '--help',
  '--version',
  '--name',
  '--name=SECRET-1',
  '--log-level',
  '--discover-timeout',
  '--max-line-bytes=SECRET',
  '--header',
  '--header=X-A:SECRET',
  '--header-env',
  '--header-env=X-B=SECRET_VAR',
  '--max-response-bytes',
  '--ca-file',
  '--bogus=SECRET',
  '--client-secret',
  'SECRET-1',
  '-SECRET',
  '"SECRET"',
  "'SECRET'",
  'X-C:SECRET',
  'X-D=SECRET_VAR',
  'info',
  '5',
  '0',
  '',
  'logout',
  'https://SECRET.example.com/mcp',
  'http://localhost/SECRET',
  'http://SECRET.example.com/',
);

describe('any command line', () => {
  it('parses to a result without throwing, and an error never echoes a value or the URL', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string()), { maxLength: 8 }), (argv) => {
        const result = parse(argv, { SECRET_VAR: 'SECRET-ENV' });
        if (result.kind !== 'error') return;
        expect(result.message).not.toContain('SECRET');
        expect(result.message).not.toContain('://');
        // yargs' own failures are a safety net: the first pass refuses everything they could refuse.
        expect(result.message).not.toBe('the arguments are not valid');
      }),
      { numRuns: 3000 },
    );
  });

  it('whatever follows "--" reaches the command unchanged', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string()), { minLength: 1, maxLength: 8 }), (command) => {
        fc.pre(command[0] !== '');
        const result = parse(['--log-level', 'debug', '--', ...command]);
        expect(result).toMatchObject({
          kind: 'serve',
          options: { upstream: { kind: 'command', argv: command } },
        });
      }),
    );
  });
});
