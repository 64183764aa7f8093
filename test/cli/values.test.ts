import { describe, expect, it } from 'vitest';
import { error, serve } from './parse.js';

const URL = 'https://mcp.example.com/mcp';

describe('values', () => {
  it.each([
    ['--discover-timeout', 'discoverTimeoutMs', '1', 1000],
    ['--discover-timeout', 'discoverTimeoutMs', '4294967295', 4_294_967_295_000],
    ['--discover-timeout', 'discoverTimeoutMs', '0060', 60_000],
    ['--max-line-bytes', 'maxLineBytes', '1', 1],
    ['--max-line-bytes', 'maxLineBytes', '1073741824', 1_073_741_824],
    ['--max-response-bytes', 'maxResponseBytes', '1', 1],
    ['--max-response-bytes', 'maxResponseBytes', '1073741824', 1_073_741_824],
    ['--listen-backoff', 'listenBackoffMs', '1', 1],
    ['--listen-backoff', 'listenBackoffMs', '2147483647', 2_147_483_647],
    ['--listen-max-backoff', 'listenMaxBackoffMs', '1', 1],
    ['--listen-max-backoff', 'listenMaxBackoffMs', '2147483647', 2_147_483_647],
  ] as const)('%s %s: %s is accepted', (option, key, text, expected) => {
    expect(serve([`${option}=${text}`, URL])[key]).toBe(expected);
  });

  it.each([
    ['--discover-timeout', '0'],
    ['--discover-timeout', '4294967296'],
    ['--discover-timeout', '99999999999999999999999'],
    ['--max-line-bytes', '0'],
    ['--max-line-bytes', '1073741825'],
    ['--max-response-bytes', '0'],
    ['--max-response-bytes', '1073741825'],
    ['--listen-backoff', '0'],
    ['--listen-backoff', '2147483648'],
    ['--listen-max-backoff', '0'],
    ['--listen-max-backoff', '2147483648'],
  ])('%s %s is out of range', (option, text) => {
    expect(error([option, text, URL])).toMatch(
      new RegExp(`^the value of ${option} is not valid: give a whole number`),
    );
  });

  it.each([
    '-1',
    '+1',
    ' 1',
    '1 ',
    '1_000',
    '0x10',
    '1e3',
    '1.5',
    '1,000',
    '',
    'ten',
    '\u0661',
    '\uff16\uff10',
  ])('numbers are decimal digits only: %j is refused', (text) => {
    expect(error([`--discover-timeout=${text}`, '--', 'x'])).toMatch(
      /^the value of --discover-timeout is not valid/,
    );
  });

  it.each(['err', 'warn', 'info', 'debug'] as const)('--log-level %s is accepted', (level) => {
    expect(serve(['--log-level', level, '--', 'x']).logLevel).toBe(level);
  });

  it.each(['error', 'warning', 'INFO', 'trace', ''])('--log-level %j is refused', (level) => {
    expect(error([`--log-level=${level}`, '--', 'x'])).toBe(
      'the value of --log-level is not valid: give err, warn, info or debug',
    );
  });

  it('without --listen-backoff and --listen-max-backoff the options hold neither (the bridge takes its defaults)', () => {
    const options = serve(['--', 'x']);
    expect('listenBackoffMs' in options).toBe(false);
    expect('listenMaxBackoffMs' in options).toBe(false);
  });

  it('--listen-max-backoff less than --listen-backoff is refused, equal is accepted', () => {
    expect(error(['--listen-backoff', '100', '--listen-max-backoff', '99', '--', 'x'])).toBe(
      'the value of --listen-max-backoff is not valid: it must not be less than --listen-backoff',
    );
    expect(serve(['--listen-backoff', '100', '--listen-max-backoff=100', URL])).toMatchObject({
      listenBackoffMs: 100,
      listenMaxBackoffMs: 100,
    });
  });

  it('--name must not be empty', () => {
    expect(error(['--name=', '--', 'x'])).toBe('the value of --name is not valid: it must not be empty');
    expect(error(['--name', '', '--', 'x'])).toBe('the value of --name is not valid: it must not be empty');
  });

  it('--name is kept as given', () => {
    expect(serve(['--name', 'My Files (beta)', '--', 'x']).name).toBe('My Files (beta)');
  });
});
