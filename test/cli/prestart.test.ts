/**
 * The pre-scan that lets the executable start its upstream before yargs loads, so that the
 * upstream's start overlaps the bridge's (src/cli/prestart.ts): it finds a command exactly when the full parse serves that very command,
 * and never for help, version, logout or a URL.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prestartCommand } from '../../src/cli/prestart.js';
import { parse } from './parse.js';

const pieces = fc.constantFrom(
  '--',
  '-',
  '--help',
  '--version',
  '--name',
  '--name=files',
  '--log-level',
  '--log-level=debug',
  '--discover-timeout',
  '--max-line-bytes=100',
  '--listen-backoff=100',
  '--listen-max-backoff=50',
  '--listen-max-backoff=200',
  '--header',
  '--header=X-A:1',
  '--ca-file',
  '--no-browser',
  '--all',
  '--bogus',
  'debug',
  '5',
  '',
  'logout',
  'node',
  'server.js',
  'https://example.com/mcp',
);

const anyArgv = fc.array(fc.oneof(pieces, fc.string()), { maxLength: 8 });
/** Options (valid or not), "--", then any command: most of these serve. */
const commandForm = fc
  .tuple(
    fc.array(
      pieces.filter((piece) => piece.startsWith('-') && piece !== '--'),
      { maxLength: 3 },
    ),
    fc.array(fc.oneof(pieces, fc.string()), { maxLength: 4 }),
  )
  .map(([options, command]) => [...options, '--', ...command]);

describe('prestartCommand', () => {
  it('finds the command after "--" of the command form', () => {
    expect(prestartCommand(['--', 'node', 'server.js', '--root', '/tmp'])).toEqual([
      'node',
      'server.js',
      '--root',
      '/tmp',
    ]);
    expect(prestartCommand(['--name', 'Files', '--log-level=debug', '--', 'npx', '-y', 'pkg', '--'])).toEqual(
      ['npx', '-y', 'pkg', '--'],
    );
    expect(prestartCommand(['--listen-backoff=20', '--listen-max-backoff', '20', '--', 'node'])).toEqual([
      'node',
    ]);
  });

  it('finds none for help, version, logout, a URL, a refused argument or value, or an empty command', () => {
    for (const argv of [
      ['--discover-timeout', '0', '--', 'node'],
      ['--max-line-bytes=x', '--', 'node'],
      ['--listen-backoff', '100', '--listen-max-backoff', '99', '--', 'node'],
      ['--log-level', 'loud', '--', 'node'],
      ['--name=', '--', 'node'],
      ['--header', 'X-A: 1', '--', 'node'],
      ['--no-browser', '--', 'node'],
      ['--help', '--', 'node'],
      ['--version', '--', 'node'],
      ['logout', '--all'],
      ['https://example.com/mcp'],
      ['https://example.com/mcp', '--', 'node'],
      ['--bogus', '--', 'node'],
      ['--name', '--', 'node'],
      ['plain', '--', 'node'],
      ['--'],
      ['--', ''],
      [],
    ]) {
      expect(prestartCommand(argv), JSON.stringify(argv)).toBeUndefined();
    }
  });

  it('agrees with the full parse: a command exactly when it serves that command (so invalid arguments start nothing)', () => {
    let served = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.oneof(anyArgv, commandForm), (argv) => {
        const command = prestartCommand(argv);
        const result = parse(argv);
        if (result.kind === 'serve' && result.options.upstream.kind === 'command') {
          served += 1;
          expect(command).toEqual(result.options.upstream.argv);
        } else {
          if (argv.includes('--')) refused += 1;
          expect(command).toBeUndefined();
        }
      }),
      { numRuns: 3000 },
    );
    expect(served).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
  });
});
