/**
 * Run by `npm run test:sea` only (vitest.sea.config.ts), after `npm run build:sea`: the process
 * tests of that run reach the single executable of this machine (test/helpers/seaSwap.ts), not
 * the bundle, and the executable is the application, not a Node that runs a script.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BRIDGE, GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { killAllPeers, spawnPeer } from '../helpers/rawPeer.js';
import { seaCommand } from '../helpers/seaSwap.js';

afterEach(killAllPeers);

describe('the single executable of this machine', () => {
  it('replaces node and the bundle in the process tests of this run', () => {
    const folder = process.env['MCP_BRIDGE_SEA_DIR'] ?? '';
    expect(folder).toMatch(/\/dist\/sea$/);
    expect(seaCommand(process.execPath, [BRIDGE, '--version'])).toEqual({
      cmd: `${folder}/mcp-bridge-vscode-linux-x64`,
      args: ['--version'],
    });
    expect(seaCommand(process.execPath, [GENERIC_BRIDGE, 'serve'])).toEqual({
      cmd: `${folder}/mcp-bridge-linux-x64`,
      args: ['serve'],
    });
  });

  it('answers --version itself, with no script argument', async () => {
    const peer = spawnPeer(process.execPath, [GENERIC_BRIDGE, '--version']);
    expect(await peer.exit).toEqual({ code: 0, signal: null });
    expect(peer.lines).toEqual(['mcp-bridge 0.1.0']);
    expect(peer.stderr).toEqual([]);
  });
});
