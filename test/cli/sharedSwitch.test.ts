import { describe, expect, it } from 'vitest';
import { sharedSwitch } from '../../src/cli/sharedSwitch.js';

describe('sharedSwitch', () => {
  it('turns on with --shared before --, and takes the shared options out of the command line', () => {
    expect(
      sharedSwitch(['--shared', '--shared-grace', '5', '--log-level', 'debug', '--', 'node', '--shared'], {}),
    ).toEqual({
      kind: 'on',
      argv: ['--log-level', 'debug', '--', 'node', '--shared'],
      graceMs: 5000,
    });
    expect(sharedSwitch(['--shared-idle=60', '--shared', 'https://example.com/mcp'], {})).toEqual({
      kind: 'on',
      argv: ['https://example.com/mcp'],
      idleSeconds: 60,
    });
  });

  it('turns on with MCP_BRIDGE_SHARED=1 only', () => {
    expect(sharedSwitch(['--', 'node', 'server.js'], { MCP_BRIDGE_SHARED: '1' })).toEqual({
      kind: 'on',
      argv: ['--', 'node', 'server.js'],
    });
    expect(sharedSwitch(['--', 'node', 'server.js'], { MCP_BRIDGE_SHARED: 'true' })).toEqual({
      kind: 'off',
      argv: ['--', 'node', 'server.js'],
    });
  });

  it('stays off for the other commands, after --, and for --help and --version', () => {
    expect(sharedSwitch(['serve', '--shared', '--', 'node'], { MCP_BRIDGE_SHARED: '1' }).kind).toBe('off');
    expect(sharedSwitch(['shared', 'daemon'], { MCP_BRIDGE_SHARED: '1' }).kind).toBe('off');
    expect(sharedSwitch(['--', 'node', '--shared'], {}).kind).toBe('off');
    expect(sharedSwitch(['--shared', '--help'], {})).toEqual({ kind: 'off', argv: ['--help'] });
  });

  it('refuses a grace or idle time that is not whole seconds', () => {
    expect(sharedSwitch(['--shared', '--shared-grace', '1.5', '--', 'node'], {})).toEqual({
      kind: 'error',
      message: "--shared-grace needs whole seconds from 0 to 86400, not '1.5'",
    });
    expect(sharedSwitch(['--shared', '--shared-idle'], {})).toEqual({
      kind: 'error',
      message: "--shared-idle needs whole seconds from 0 to 86400, not ''",
    });
  });
});
