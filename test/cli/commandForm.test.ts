/**
 * The command form read without yargs (src/cli/commandForm.ts) gives exactly the options
 * of the full parse (src/cli/args.ts), and nothing for any other command line.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandFormOptions } from '../../src/cli/commandForm.js';
import { parse } from './parse.js';

const pieces = fc.constantFrom(
  '--',
  '--help',
  '--version',
  '--name',
  '--name=files',
  '--name=',
  '--name="quoted"',
  '--log-level',
  '--log-level=debug',
  '--log-level=err',
  '--discover-timeout',
  '--discover-timeout=0',
  '--discover-timeout=007',
  '--max-line-bytes',
  '--max-line-bytes=1073741824',
  '--max-line-bytes=1073741825',
  '--max-response-bytes=100',
  '--listen-backoff',
  '--listen-backoff=20',
  '--listen-backoff=0',
  '--listen-max-backoff=10',
  '--listen-max-backoff=2147483648',
  '--header=X-A:1',
  '--ca-file',
  '--no-browser',
  'warn',
  'debug',
  'loud',
  '5',
  '0',
  '',
  'Files Server',
  'node',
  'https://example.com/mcp',
);
const anyArgv = fc.array(fc.oneof(pieces, fc.string()), { maxLength: 8 });
/** Options, "--", then any command: most of these serve. */
const commandForm = fc
  .tuple(
    fc.array(fc.oneof(pieces, fc.string()), { maxLength: 6 }),
    fc.array(fc.oneof(pieces, fc.string()), { maxLength: 4 }),
  )
  .map(([options, command]) => [...options, '--', ...command]);

describe('commandFormOptions', () => {
  it('reads the defaults, the last value of each option and the command', () => {
    expect(
      commandFormOptions(['--name', 'A', '--name=B', '--discover-timeout', '5', '--', 'node', 'x']),
    ).toEqual({
      upstream: { kind: 'command', argv: ['node', 'x'] },
      name: 'B',
      logLevel: 'info',
      discoverTimeoutMs: 5_000,
      maxLineBytes: 67_108_864,
      headers: [],
      maxResponseBytes: 67_108_864,
      warnings: [],
    });
    expect(commandFormOptions(['https://example.com/mcp'])).toBeUndefined();
  });

  it('reads --listen-backoff and --listen-max-backoff, and leaves both out when they are not given', () => {
    expect(
      commandFormOptions(['--listen-backoff', '20', '--listen-max-backoff=80', '--', 'node']),
    ).toMatchObject({ listenBackoffMs: 20, listenMaxBackoffMs: 80 });
    expect(commandFormOptions(['--', 'node'])).not.toHaveProperty('listenBackoffMs');
    expect(commandFormOptions(['--', 'node'])).not.toHaveProperty('listenMaxBackoffMs');
  });

  it('gives the options of the full parse for every command line it reads, and reads every command form the full parse serves', () => {
    let served = 0;
    let other = 0;
    fc.assert(
      fc.property(fc.oneof(anyArgv, commandForm, commandForm), (argv) => {
        const result = parse(argv);
        const options = commandFormOptions(argv);
        if (result.kind === 'serve' && result.options.upstream.kind === 'command') {
          served += 1;
          expect(options).toEqual(result.options);
        } else {
          other += 1;
          expect(options).toBeUndefined();
        }
      }),
      { numRuns: 5000 },
    );
    expect(served).toBeGreaterThan(300);
    expect(other).toBeGreaterThan(300);
  });
});
