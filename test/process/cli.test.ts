/**
 * The command line of the built executable (docs/cli.md#cli-forms, docs/testing.md#testing-process items 11 and 12):
 * exit code 2 with stdout empty for arguments that are not valid, --version and --help on stdout
 * with code 0. The parser itself is unit-tested in test/cli. Needs the build
 * (`npx tsc -p tsconfig.build.json`).
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BRIDGE, FIXTURE } from '../helpers/bridgeProcess.js';
import { killAllPeers, spawnPeer } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
/** A value that must never appear in a diagnostic. */
const SECRET = 'SECRET-VALUE-4d2a';
const UPSTREAM = ['--', process.execPath, FIXTURE];

const run = (args: string[]): RawPeer => spawnPeer(process.execPath, [BRIDGE, ...args]);

// Two at a time: each test starts Node twice, on a machine of two cores.
vi.setConfig({ maxConcurrency: 2 });
afterAll(killAllPeers);

describe.concurrent('the command line', () => {
  it.each([
    ['no arguments', []],
    ['an upstream command without --', [process.execPath, FIXTURE]],
    ['an unknown option', ['--insecure', ...UPSTREAM]],
    ['an unknown log level', ['--log-level', SECRET, ...UPSTREAM]],
    ['a discover timeout of 0', ['--discover-timeout', '0', ...UPSTREAM]],
    ['a line limit that is not a number', [`--max-line-bytes=${SECRET}`, ...UPSTREAM]],
    ['an option without its value', ['--name', ...UPSTREAM]],
    ['an option of the URL form', ['--header', `X-Key: ${SECRET}`, ...UPSTREAM]],
    ['a flag with a value', ['--version=yes']],
  ])('exits with code 2, stdout empty and no value echoed, for %s', async (_, args) => {
    const cli = run(args);
    const exit = await cli.exit;
    await cli.stdoutClosed;
    expect(exit).toEqual({ code: 2, signal: null });
    expect(cli.lines).toEqual([]);
    expect(cli.stderr[0]).toMatch(/^mcp-bridge-vscode: vscode: error: /);
    expect(cli.stderr.join('\n')).not.toContain(SECRET);
    expect(cli.stderr.join('\n')).toContain('Usage: mcp-bridge-vscode ');
  });

  it('writes the version on stdout and exits with code 0 for --version', async () => {
    const cli = run(['--version']);
    expect(await cli.exit).toEqual({ code: 0, signal: null });
    await cli.stdoutClosed;
    expect(cli.lines).toEqual([`mcp-bridge-vscode ${VERSION}`]);
    expect(cli.stderr).toEqual([]);
  });

  it('writes the usage on stdout and exits with code 0 for --help, also with other options', async () => {
    for (const args of [['--help'], ['--log-level', 'debug', '--help', ...UPSTREAM]]) {
      const cli = run(args);
      expect(await cli.exit).toEqual({ code: 0, signal: null });
      await cli.stdoutClosed;
      expect(cli.lines[0]).toMatch(/^Usage: mcp-bridge-vscode /);
      expect(cli.lines.join('\n')).toContain('--max-line-bytes');
      expect(cli.stderr).toEqual([]);
    }
  });

  it('gives --help after -- to the upstream command, not to the bridge', async () => {
    // The fixture refuses --help with code 2 at initialize time; the bridge itself starts normally.
    const cli = run(['--', process.execPath, FIXTURE, '--help']);
    cli.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(await cli.nextFrame()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    cli.closeStdin();
    expect(await cli.exit).toEqual({ code: 0, signal: null });
  });
});
