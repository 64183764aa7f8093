/**
 * The user-service examples of `serve` (examples/service/, README.md "Run serve as a user
 * service"): the command line of each (the systemd unit's ExecStart, the launchd agent's
 * ProgramArguments, the scheduled task's Arguments) is one the executable accepts, every option
 * in it is one `--help` lists, and it listens on loopback (docs/serve.md#serve-security).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/args.js';
import { helpText } from '../../src/cli/help.js';
import { genericProfile } from '../../src/profiles/generic.js';

const read = (name: string): string => readFileSync(new URL(`../../examples/service/${name}`, import.meta.url), 'utf8');

/** The arguments after the executable name `mcp-bridge` (or `mcp-bridge.cmd`). */
function afterExecutable(words: readonly string[]): string[] {
  const at = words.findIndex((word) => /^mcp-bridge(\.cmd)?$/.test(word));
  expect(at, 'the executable mcp-bridge').toBeGreaterThanOrEqual(0);
  return words.slice(at + 1);
}

const EXAMPLES: Record<string, () => string[]> = {
  'mcp-bridge.service': () => {
    const line = read('mcp-bridge.service')
      .split('\n')
      .find((text) => text.startsWith('ExecStart='));
    return afterExecutable((line ?? '').slice('ExecStart='.length).split(/\s+/));
  },
  'com.example.mcp-bridge.plist': () => {
    const array = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(
      read('com.example.mcp-bridge.plist'),
    );
    const words = [...(array?.[1] ?? '').matchAll(/<string>([^<]*)<\/string>/g)].map((m) => m[1]!);
    return afterExecutable(words);
  },
  'mcp-bridge-task.xml': () => {
    const xml = read('mcp-bridge-task.xml');
    const command = /<Command>([^<]*)<\/Command>/.exec(xml)?.[1] ?? '';
    const args = /<Arguments>([^<]*)<\/Arguments>/.exec(xml)?.[1] ?? '';
    return afterExecutable([command, ...args.split(/\s+/)]);
  },
};

describe('the user-service examples of serve', () => {
  const help = helpText(genericProfile);
  it.each(Object.keys(EXAMPLES))('%s runs serve on 127.0.0.1:8808 with options --help lists', (name) => {
    const argv = EXAMPLES[name]!();
    expect(argv[0]).toBe('serve');
    const options = argv.slice(1, argv.indexOf('--')).filter((word) => word.startsWith('--'));
    expect(options).toEqual(['--listen', '--session-idle']);
    for (const option of options) expect(help).toMatch(new RegExp(`^ {2}${option} `, 'm'));
    const parsed = parseCommandLine(argv, {}, '0.0.0', genericProfile);
    if (parsed.kind !== 'serve-http') throw new Error(`parsed as ${parsed.kind}: ${JSON.stringify(parsed)}`);
    expect(parsed.http).toMatchObject({ host: '127.0.0.1', port: 8808, sessionIdleMs: 3_600_000 });
    expect(parsed.options.upstream).toMatchObject({ kind: 'command' });
  });
});
